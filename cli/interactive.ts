/**
 * `reasonix` on a terminal: the interactive session (Ink). Loaded lazily by `app.ts`, so the
 * headless path never pays for the UI.
 *
 * @module
 */
import { join } from "node:path";
import { commandSources, loadCustomCommands } from "../core/commands/mod.ts";
import { reasonixHome } from "../core/config/mod.ts";
import { ReasonixError } from "../errors.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import type { InteractiveOptions } from "./commands/types.ts";
import { type CliHost, openHost } from "./host.ts";
import { promptProjectTrust, terminalIo, type TrustSessionChoices } from "./ui/trust_prompt.ts";
import {
  BUILTIN_NAMES,
  colorWanted,
  HostBackend,
  InputHistory,
  mcpView,
  runChatApp,
  UiApprovalBroker,
} from "./ui/mod.ts";
import { version } from "./version.ts";

/**
 * Runs the interactive session with the top-level options (parsed by `cli/commands/program.ts`)
 * and returns the exit code.
 */
export async function interactive(opts: InteractiveOptions): Promise<number> {
  const env = Deno.env.toObject();
  const home = reasonixHome(env);
  const broker = new UiApprovalBroker();
  const permissions = opts.permissions;
  let host: CliHost | undefined;
  let backend: HostBackend;
  try {
    // Asked once, before anything of the project starts.
    const trust: TrustSessionChoices | undefined = permissions.trustProject
      ? undefined
      : await promptProjectTrust({ home, cwd: Deno.cwd(), io: terminalIo() });
    // One host for the whole session: `/model`, `/resume` and `/new` make new agents on it.
    host = await openHost({
      cwd: Deno.cwd(),
      env,
      flags: { model: opts.model, ...permissions },
      trustSession: trust?.session,
      trustSkipped: trust?.skipped,
      ...(opts.remote ? { remote: { ...opts.remote, interactive: true } } : {}),
    });
    backend = await HostBackend.create({
      host,
      broker,
      mcp: host.mcp && mcpView(host.mcp),
    }, { model: opts.model, resume: opts.resume });
  } catch (error) {
    await host?.close();
    if (error instanceof ReasonixError) {
      console.error(`reasonix: ${error.message}`);
      return EXIT_USAGE;
    }
    throw error;
  }
  try {
    const loaded = await loadCustomCommands(
      commandSources({
        workspaceRoot: backend.info().workspaceRoot,
        home,
        workspace: host.workspace,
      }),
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
    await host.close();
  }
  return EXIT_OK;
}
