/**
 * Top-level command dispatch. Subcommand modules load lazily so each path pays only for
 * what it uses.
 *
 * @module
 */
import { ReasonixError } from "../errors.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { lazyImport } from "./lazy.ts";
import { version } from "./version.ts";

/** The top-level help text. */
export const USAGE = `reasonix — a coding agent for your terminal

Usage:
  reasonix                      start an interactive session (needs a terminal)
  reasonix -c | -r <id>         interactive: continue the newest session, or resume one
  reasonix -m <model>           interactive with another model (provider/model)
  reasonix --permission-mode <m> [--allow <rule>] [--deny <rule>]
                                interactive with a permission preset and extra rules
  reasonix run "<task>"         run a task headless, streaming the answer to stdout
  reasonix run --continue "…"   continue the newest session of this workspace
  reasonix sessions list        list this workspace's sessions
  reasonix config compact-ratio [--local] [VALUE]
                                show or set when context maintenance starts
  reasonix mcp add|remove|list|get|login|logout
                                manage MCP servers (see reasonix mcp --help)
  reasonix trust [status|list|grant|revoke]
                                trust the MCP servers and settings this project declares
  reasonix --version            print the version

Global options:
  --cwd <dir>                   work in <dir> instead of the current directory
  -h, --help                    show help (also: reasonix run --help)

Configuration: ./reasonix.toml, then ~/.reasonix/config.toml (REASONIX_HOME overrides).
The API key comes from the environment variable named by the provider's api_key_env
(DEEPSEEK_API_KEY by default) or from ~/.reasonix/.env.
`;

/** Options that start an interactive session rather than name a subcommand. */
const INTERACTIVE_OPTIONS = new Set([
  "-c",
  "--continue",
  "-r",
  "--resume",
  "-m",
  "--model",
  "--permission-mode",
  "--allow",
  "--deny",
  "--trust-project",
]);

/** Thrown for bad command-line usage; the message is shown as is. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Splits the global `--cwd` option from the rest. An empty value is ignored. */
function takeGlobalOptions(argv: string[]): { cwd?: string; rest: string[] } {
  const rest: string[] = [];
  let cwd: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (rest.length === 0 && arg === "--cwd") {
      cwd = argv[++i];
      if (cwd === undefined) throw new UsageError("--cwd needs a directory");
      continue;
    }
    if (rest.length === 0 && arg.startsWith("--cwd=")) {
      cwd = arg.slice("--cwd=".length);
      continue;
    }
    rest.push(arg);
  }
  if (cwd?.trim() === "") throw new UsageError("--cwd needs a directory, got an empty value");
  return { cwd, rest };
}

/** Runs the CLI with `argv` (without the program name) and returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  let parsed: { cwd?: string; rest: string[] };
  try {
    parsed = takeGlobalOptions(argv);
    if (parsed.cwd) {
      try {
        Deno.chdir(parsed.cwd);
      } catch (error) {
        throw new UsageError(`cannot use --cwd ${parsed.cwd}: ${(error as Error).message}`);
      }
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`reasonix: ${error.message}`);
      return EXIT_USAGE;
    }
    throw error;
  }

  try {
    return await dispatch(parsed.rest);
  } catch (error) {
    // What the user must fix (a broken home folder, a damaged session) is a message, not a trace.
    if (!(error instanceof ReasonixError)) throw error;
    console.error(`reasonix: ${error.message}`);
    return error.code === "config_invalid" || error.code === "session_not_found"
      ? EXIT_USAGE
      : EXIT_FAILURE;
  }
}

/** Subcommands, for the hint when options are put before one. */
const SUBCOMMANDS = new Set(["run", "sessions", "config", "mcp", "trust"]);

async function dispatch(rest: string[]): Promise<number> {
  const [command, ...args] = rest;
  if (command === undefined || INTERACTIVE_OPTIONS.has(command.split("=")[0])) {
    const sub = rest.find((arg) => SUBCOMMANDS.has(arg));
    if (sub) {
      const before = rest.slice(0, rest.indexOf(sub));
      console.error(
        `reasonix: ${before.join(" ")} must come after \`${sub}\`: ` +
          `reasonix ${sub} ${before.join(" ")} …`,
      );
      return EXIT_USAGE;
    }
    if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
      console.error(USAGE);
      console.error("reasonix: no terminal for an interactive session; use `reasonix run`.");
      return EXIT_USAGE;
    }
    const { interactive } = await lazyImport<typeof import("./interactive.ts")>(
      "cli/interactive.ts",
    );
    return await interactive(rest);
  }
  switch (command) {
    case "run": {
      const { runCommand } = await lazyImport<typeof import("./run.ts")>("cli/run.ts");
      return await runCommand(args);
    }
    case "sessions": {
      const { sessionsCommand } = await lazyImport<typeof import("./sessions_cmd.ts")>(
        "cli/sessions_cmd.ts",
      );
      return await sessionsCommand(args);
    }
    case "config": {
      const { configCommand } = await lazyImport<typeof import("./config_cmd.ts")>(
        "cli/config_cmd.ts",
      );
      return await configCommand(args);
    }
    case "mcp": {
      const { mcpCommand } = await lazyImport<typeof import("./mcp.ts")>("cli/mcp.ts");
      return await mcpCommand(args);
    }
    case "trust": {
      const { trustCommand } = await lazyImport<typeof import("./trust.ts")>("cli/trust.ts");
      return await trustCommand(args);
    }
    case "-h":
    case "--help":
    case "help":
      console.log(USAGE);
      return EXIT_OK;
    case "version":
      console.log(`reasonix ${version()}`);
      return EXIT_OK;
    default:
      console.error(
        `reasonix: unknown command "${command}".\nTo run a task: reasonix run "${command}${
          args.length ? " …" : ""
        }"\n\n${USAGE}`,
      );
      return EXIT_USAGE;
  }
}
