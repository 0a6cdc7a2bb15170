/**
 * The fast path of `reasonix run`: the common command lines (`reasonix [--cwd <dir>] run
 * [options] <task>`) are read with the same option declarations the command tree uses
 * (`run_spec.ts`, `PERMISSION_OPTIONS`), without loading commander, whose module and tree take
 * a tenth of a headless run's start-up. Whatever this path does not fully understand (help, an
 * unknown or misspelt option, a bad value, bundled short flags) goes to the command tree, which
 * parses it again and answers as it always does.
 *
 * @module
 */
import { lazyImport } from "../lazy.ts";
import { PERMISSION_OPTIONS } from "../permission_flags.ts";
import { failureExit } from "./failure.ts";
import { optionFlags, readOptions } from "./option_spec.ts";
import {
  checkRunOptions,
  CWD_OPTION,
  type RawRunOptions,
  RUN_COMMAND,
  RUN_OPTIONS,
} from "./run_spec.ts";
import type { RunModule } from "./types.ts";

/** A `reasonix run` command line as the fast path read it. */
export interface FastRunArgs {
  /** `--cwd`, when given before `run`. */
  cwd?: string;
  /** The words of the task. */
  words: string[];
  /** The options of `run`, by key, as commander would have stored them. */
  raw: RawRunOptions;
}

/**
 * Reads `argv` (without the program name) when it is a plain `run` command line; undefined
 * when the command tree must parse it.
 */
export function readRunArgs(argv: readonly string[]): FastRunArgs | undefined {
  const cwdFlag = optionFlags(CWD_OPTION).long;
  let cwd: string | undefined;
  let i = 0;
  // Before the subcommand, only the program's `--cwd`; commander reads it the same way.
  for (; i < argv.length && argv[i] !== RUN_COMMAND; i++) {
    if (argv[i] === cwdFlag && i + 1 < argv.length) cwd = argv[++i];
    else if (argv[i].startsWith(`${cwdFlag}=`)) cwd = argv[i].slice(cwdFlag.length + 1);
    else return undefined;
  }
  if (argv[i] !== RUN_COMMAND) return undefined;
  const read = readOptions(argv.slice(i + 1), [...RUN_OPTIONS, ...PERMISSION_OPTIONS]);
  if (!read) return undefined;
  return { ...(cwd === undefined ? {} : { cwd }), words: read.words, raw: read.values };
}

/**
 * Runs `argv` on the fast path and returns the exit code, or undefined (having changed
 * nothing) when the command tree must take it.
 */
export async function runFast(argv: readonly string[]): Promise<number | undefined> {
  const args = readRunArgs(argv);
  if (!args) return undefined;
  const before = Deno.cwd();
  if (args.cwd !== undefined) {
    if (args.cwd.trim() === "") return undefined;
    try {
      Deno.chdir(args.cwd);
    } catch {
      return undefined;
    }
  }
  const options = await checkRunOptions(args.words, args.raw);
  if ("usage" in options) {
    // The tree reports it with run's help; it applies `--cwd` again from where it started.
    Deno.chdir(before);
    return undefined;
  }
  try {
    const { runCommand } = await lazyImport<RunModule>("cli/run.ts");
    return await runCommand(options);
  } catch (error) {
    return failureExit(error, { err: (text) => console.error(text) });
  }
}
