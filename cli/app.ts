/**
 * The command line after `--version`: the commander command tree of `cli/commands/`, parsed
 * and run. Subcommand modules load lazily, so each path pays only for what it uses.
 *
 * @module
 */
import { buildProgram } from "./commands/program.ts";
import { configureTree, CONSOLE_IO, execute } from "./commands/execute.ts";
import { failureExit } from "./commands/failure.ts";

/** The top-level help text, as `reasonix --help` prints it. */
export function usage(): string {
  return buildProgram({ io: CONSOLE_IO }).helpInformation();
}

/** Runs the CLI with `argv` (without the program name) and returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const ctx = { io: CONSOLE_IO };
  const program = buildProgram(ctx);
  configureTree(program, ctx.io);
  try {
    return await execute(program, argv, ctx.io);
  } catch (error) {
    // What the user must fix (a broken home folder, a damaged session) is a message, not a trace.
    return failureExit(error, ctx.io);
  }
}
