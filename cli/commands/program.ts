/**
 * The `reasonix` command tree: the program with its interactive options, and every
 * subcommand. Only definitions load here; what a command does is imported lazily by its
 * action, so each path pays only for what it uses.
 *
 * @module
 */
import { Command, CommanderError, Option } from "commander";
import { EXIT_OK, EXIT_USAGE } from "../exit_codes.ts";
import { lazyImport } from "../lazy.ts";
import { permissionFlags } from "../permission_flags.ts";
import { version, versionReport } from "../version.ts";
import { defineAcp } from "./acp.ts";
import { defineCompletions } from "./completions.ts";
import { defineConfig } from "./config.ts";
import { defineDoctor } from "./doctor.ts";
import { action, type CliContext, parsedArgv, unknownCommand } from "./execute.ts";
import { defineMcp } from "./mcp.ts";
import { addOptions, addPermissionOptions } from "./options.ts";
import { defineRun } from "./run.ts";
import { CWD_OPTION, parseForwards, REMOTE_OPTIONS } from "./run_spec.ts";
import { defineServe } from "./serve.ts";
import { defineSessions } from "./sessions.ts";
import { defineSubagent } from "./subagent.ts";
import { defineSetup } from "./setup.ts";
import { defineTrust } from "./trust.ts";
import type { InteractiveModule, SetupModule } from "./types.ts";

export type { InteractiveOptions } from "./types.ts";

/** Top-level options that configure the interactive session (not valid before a subcommand). */
const INTERACTIVE_KEYS = [
  "continue",
  "resume",
  "model",
  "permissionMode",
  "allow",
  "deny",
  "trustProject",
  "remote",
  "acceptNewHostKey",
  "forward",
] as const;

const FOOTER = `
Configuration: ./reasonix.toml, then ~/.reasonix/config.toml (REASONIX_HOME overrides).
The API key comes from the environment variable named by the provider's api_key_env
(DEEPSEEK_API_KEY by default) or from ~/.reasonix/.env.`;

/** The given options `keys` of `command` as they would be typed, short flags first. */
function asTyped(command: Command, keys: readonly string[]): string[] {
  const quote = (v: string) => /\s/.test(v) ? `"${v}"` : v;
  return keys.flatMap((key) => {
    const option = command.options.find((o) => o.attributeName() === key);
    const flag = option?.short ?? option?.long ?? key;
    const value = command.getOptionValue(key);
    if (typeof value === "boolean") return [flag];
    return (Array.isArray(value) ? value : [value]).flatMap((v) => [flag, quote(String(v))]);
  });
}

/**
 * Builds the whole command tree. `ctx` is where the commands that take one (`mcp`, `trust`)
 * write and which directory and environment they use.
 */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command("reasonix")
    .description(
      "A coding agent for your terminal. Without a command, starts an interactive session " +
        "(needs a terminal).",
    )
    .usage("[options] [command]")
    // Options before a subcommand are the program's; after it, the subcommand's own.
    .enablePositionalOptions()
    .optionsGroup("Global options:")
    .option("-v, --version", "print the version (with --json: as JSON)")
    .helpOption("-h, --help", "show help (also: reasonix <command> --help)");
  // Not commander's own version option, which prints plain text and stops where it stands:
  // `--json` may come after it, and other global options before it.
  program.on("option:version", () => {
    const json = parsedArgv(program).includes("--json");
    ctx.io.out(json ? JSON.stringify(versionReport()) : `reasonix ${version()}`);
    throw new CommanderError(EXIT_OK, "commander.version", version());
  });
  addOptions(program, [CWD_OPTION])
    .optionsGroup("Interactive session options:")
    .addOption(
      new Option("-c, --continue", "continue the newest session of this workspace").conflicts(
        "resume",
      ),
    )
    .option("-r, --resume <id>", "resume the session with this id (or id prefix)")
    .option("-m, --model <name>", "the model: provider, model, or provider/model");
  addPermissionOptions(program);
  addOptions(program, REMOTE_OPTIONS);
  program.addHelpText("after", FOOTER).commandsGroup("Commands:");

  let entered = false;
  /** Applies `--cwd` once, before any action. */
  const enterCwd = () => {
    const cwd = program.opts().cwd as string | undefined;
    if (cwd === undefined || entered) return;
    entered = true;
    if (cwd.trim() === "") program.error("error: --cwd needs a directory, got an empty value");
    try {
      Deno.chdir(cwd);
    } catch (error) {
      program.error(`error: cannot use --cwd ${cwd}: ${(error as Error).message}`);
    }
  };

  program.hook("preSubcommand", (_program, sub) => {
    enterCwd();
    const given = INTERACTIVE_KEYS.filter((key) => program.getOptionValueSource(key) === "cli");
    if (given.length === 0) return;
    // The options given before the subcommand's name, to show where they belong.
    const before = asTyped(program, given);
    program.error(
      `error: ${before.join(" ")} must come after \`${sub.name()}\`: ` +
        `reasonix ${sub.name()} ${before.join(" ")} …`,
    );
  });

  defineRun(program, ctx);
  defineSetup(program, ctx);
  defineSessions(program, ctx);
  defineSubagent(program, ctx);
  defineConfig(program, ctx);
  defineMcp(program, ctx);
  defineTrust(program, ctx);
  defineServe(program, ctx);
  defineDoctor(program, ctx);
  defineCompletions(program, ctx);
  defineAcp(program, ctx);
  action(
    program.command("version", { hidden: true }).description("print the version")
      .option("--json", "version, commit, Deno and V8 versions and target as JSON"),
    (options: { json?: boolean }) => {
      ctx.io.out(options.json ? JSON.stringify(versionReport()) : `reasonix ${version()}`);
      return EXIT_OK;
    },
  );

  program.allowExcessArguments(true);
  return action(program, async (options: Record<string, unknown>) => {
    if (program.args.length > 0) {
      // Most likely a task typed without `run`.
      program.showHelpAfterError(
        `To run a task: reasonix run "${
          program.args.join(" ")
        }"\n(reasonix --help shows the usage)`,
      );
      unknownCommand(program);
    }
    const forwards = parseForwards(options as { forward?: string[]; remote?: unknown });
    if (typeof forwards === "string") {
      ctx.io.err(`reasonix: ${forwards}`);
      return EXIT_USAGE;
    }
    enterCwd();
    if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
      ctx.io.err(program.helpInformation());
      ctx.io.err("reasonix: no terminal for an interactive session; use `reasonix run`.");
      return EXIT_USAGE;
    }
    // The first start with no usable provider offers `reasonix setup` before the UI loads.
    const { offerSetup } = await lazyImport<SetupModule>("cli/setup/command.ts");
    const stop = await offerSetup({ model: options.model as string | undefined }, ctx);
    if (stop !== undefined) return stop;
    const { interactive } = await lazyImport<InteractiveModule>(
      "cli/interactive.ts",
    );
    return await interactive({
      model: options.model as string | undefined,
      resume: options.continue ? "latest" : options.resume as string | undefined,
      ...(typeof options.remote === "string"
        ? {
          remote: {
            target: options.remote,
            acceptNewHostKey: options.acceptNewHostKey === true,
            ...(forwards.length ? { forwards } : {}),
          },
        }
        : {}),
      permissions: permissionFlags(options),
    });
  });
}
