/**
 * Running a commander command tree: where its output goes, how its errors read, and how the
 * exit code comes back. Every command of `reasonix` is parsed by commander (npm `commander`):
 * it gives every command and subcommand `--help`, "did you mean" for unknown commands and
 * options, and the tree the shell completions are generated from.
 *
 * @module
 */
import { Command, CommanderError } from "commander";
import { EXIT_OK, EXIT_USAGE } from "../exit_codes.ts";
import { requestedJsonFormat, startupFailure } from "../output/startup_failure.ts";

/** Where a command writes: one call per message, without its trailing newline. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** The process's stdout and stderr. */
export const CONSOLE_IO: CliIo = {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
};

/** What the actions of a command tree run against; tests pass their own. */
export interface CliContext {
  io: CliIo;
  /** The working directory; `Deno.cwd()` at the time the action runs when absent. */
  cwd?: string;
  env?: Record<string, string | undefined>;
}

/**
 * Bad usage found after parsing (a value out of range, options that do not go together): the
 * message is shown with the command's name and its help, and the exit code is 2.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The command whose help goes with a {@link UsageError}. */
const usageErrorCommand = new WeakMap<UsageError, Command>();

/** `reasonix mcp add` for the `add` command under `mcp`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

const EXIT_CODES = new WeakMap<Command, number>();

/** The command line {@link execute} is parsing with each root. */
const ARGVS = new WeakMap<Command, readonly string[]>();

/** The whole command line being parsed by the tree `command` belongs to (empty outside). */
export function parsedArgv(command: Command): readonly string[] {
  return ARGVS.get(rootOf(command)) ?? [];
}

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

/**
 * Sets `command`'s action: `run` gets commander's action arguments and returns the exit code.
 */
export function action<A extends unknown[]>(
  command: Command,
  run: (...args: A) => Promise<number> | number,
): Command {
  return command.action(async (...args: unknown[]) => {
    try {
      EXIT_CODES.set(rootOf(command), await run(...args as A));
    } catch (error) {
      if (error instanceof UsageError && !usageErrorCommand.has(error)) {
        usageErrorCommand.set(error, command);
      }
      throw error;
    }
  });
}

/**
 * Fails with commander's own "unknown command … (Did you mean …?)" for a command that has both
 * subcommands and an action of its own (bare `reasonix` is the interactive session, bare
 * `reasonix trust` its status), where commander hands stray words to that action instead.
 * `unknownCommand` is commander's (stable since v5, not in its typings).
 */
export function unknownCommand(command: Command): never {
  (command as unknown as { unknownCommand(): void }).unknownCommand();
  throw new Error("unreachable: commander's unknownCommand returned");
}

/**
 * Applies the settings every command shares, to `root` and all commands below it: output to
 * `io`, errors prefixed with the command's name instead of `error:`, the hint to `--help`, and
 * errors thrown (not `process.exit`) so {@link execute} turns them into exit codes.
 */
export function configureTree(root: Command, io: CliIo): void {
  const visit = (command: Command) => {
    const path = commandPath(command);
    if (command.parent) command.helpOption("-h, --help", "show this help");
    if (command.commands.length) {
      command.helpCommand("help [command]", "show the help of a command");
    }
    command
      .exitOverride()
      .showSuggestionAfterError(true)
      .showHelpAfterError(`(${path} --help shows the usage)`)
      .configureOutput({
        writeOut: (text) => io.out(text.replace(/\n$/, "")),
        writeErr: (text) => io.err(text.replace(/\n$/, "")),
        outputError: (text, write) => write(text.replace(/^error: /, `${path}: `)),
      });
    for (const sub of command.commands) visit(sub);
  };
  visit(root);
}

/**
 * Parses `argv` (without the program name) with the tree at `root`, runs the chosen action and
 * returns its exit code: 0 after help or the version, 2 for a usage error (commander's or a
 * {@link UsageError}). Other errors propagate. Call {@link configureTree} first.
 */
export async function execute(root: Command, argv: string[], io: CliIo): Promise<number> {
  EXIT_CODES.delete(root);
  ARGVS.set(root, argv);
  try {
    await root.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return EXIT_OK;
    if (!(error instanceof CommanderError || error instanceof UsageError)) throw error;
    if (error instanceof UsageError) {
      const command = usageErrorCommand.get(error) ?? root;
      io.err(`${commandPath(command)}: ${error.message}\n`);
      io.err(command.helpInformation().replace(/\n$/, ""));
    }
    // `run --json` reports a bad command line on stdout too, in the format it asked for.
    const format = requestedJsonFormat(argv);
    if (format) {
      const message = error.message.replace(/^error: /, "");
      io.out(JSON.stringify(startupFailure(format, { code: "usage", message })));
    }
    return EXIT_USAGE;
  }
  return EXIT_CODES.get(root) ?? EXIT_OK;
}

/** A {@link UsageError} of `command`: its message is shown with that command's help. */
export function usageError(command: Command, message: string): UsageError {
  const error = new UsageError(message);
  usageErrorCommand.set(error, command);
  return error;
}

/**
 * Runs `argv` against a tree that holds only what `define` adds under `reasonix`: a command
 * in-process with its own {@link CliContext}, as the program would run it (used by tests).
 */
export async function runSubtree(
  define: (parent: Command, ctx: CliContext) => Command,
  argv: string[],
  ctx: CliContext,
): Promise<number> {
  const root = new Command("reasonix");
  define(root, ctx);
  configureTree(root, ctx.io);
  return await execute(root, argv, ctx.io);
}
