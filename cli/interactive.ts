/**
 * `reasonix` on a terminal: the interactive session (Ink). Loaded lazily by `app.ts`, so the
 * headless path never pays for the UI.
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { commandSources, loadCustomCommands } from "../core/commands/mod.ts";
import { reasonixHome } from "../core/config/mod.ts";
import { ReasonixError } from "../errors.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { PERMISSION_OPTIONS, permissionFlags } from "./permission_flags.ts";
import { buildRuntime } from "./runtime.ts";
import { promptProjectTrust, terminalIo, type TrustSessionChoices } from "./ui/trust_prompt.ts";
import {
  BUILTIN_NAMES,
  colorWanted,
  InputHistory,
  mcpView,
  runChatApp,
  RuntimeBackend,
  UiApprovalBroker,
} from "./ui/mod.ts";
import { version } from "./version.ts";

/** Runs the interactive session and returns the exit code. */
export async function interactive(argv: string[]): Promise<number> {
  let values: { model?: string; continue?: boolean; resume?: string } & Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        model: { type: "string", short: "m" },
        continue: { type: "boolean", short: "c" },
        resume: { type: "string", short: "r" },
        ...PERMISSION_OPTIONS,
      },
    }));
  } catch (error) {
    console.error(`reasonix: ${(error as Error).message}`);
    return EXIT_USAGE;
  }
  if (values.continue && values.resume !== undefined) {
    console.error("reasonix: use either --continue or --resume, not both");
    return EXIT_USAGE;
  }
  const env = Deno.env.toObject();
  const home = reasonixHome(env);
  const broker = new UiApprovalBroker();
  const permissions = permissionFlags(values);
  let backend: RuntimeBackend;
  try {
    // Asked once, before anything of the project starts; rebuilds reuse the answers.
    const trust: TrustSessionChoices | undefined = permissions.trustProject
      ? undefined
      : await promptProjectTrust({ home, cwd: Deno.cwd(), io: terminalIo() });
    backend = await RuntimeBackend.create({
      home,
      build: (o) =>
        buildRuntime({
          cwd: Deno.cwd(),
          env,
          flags: {
            model: o.model,
            reasoningEffort: o.reasoningEffort,
            resume: o.resume,
            ...permissions,
          },
          broker,
          trustSession: trust?.session,
          trustSkipped: trust?.skipped,
        }),
      mcp: (runtime) => mcpView(runtime.mcp),
    }, { model: values.model, resume: values.continue ? "latest" : values.resume });
  } catch (error) {
    if (error instanceof ReasonixError) {
      console.error(`reasonix: ${error.message}`);
      return EXIT_USAGE;
    }
    throw error;
  }
  try {
    const loaded = await loadCustomCommands(
      commandSources({ workspaceRoot: backend.info().workspaceRoot, home }),
      { reserved: BUILTIN_NAMES },
    );
    await runChatApp({
      backend,
      broker,
      commands: loaded.commands,
      notices: loaded.notices,
      history: await InputHistory.load(join(home, "prompt_history.jsonl")),
      version: version(),
      color: colorWanted(env),
    });
  } finally {
    await backend.dispose();
  }
  return EXIT_OK;
}
