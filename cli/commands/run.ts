/**
 * `reasonix run [options] "<task>"`: the options of a headless run, checked and gathered into
 * {@link RunOptions}. The run itself (`cli/run.ts`) loads only once they are valid.
 *
 * @module
 */
import type { Command } from "commander";
import { lazyImport } from "../lazy.ts";
import { action, type CliContext, usageError } from "./execute.ts";
import { addOptions, addPermissionOptions } from "./options.ts";
import { checkRunOptions, type RawRunOptions, RUN_COMMAND, RUN_OPTIONS } from "./run_spec.ts";
import type { RunModule, RunOptions } from "./types.ts";

export type { RunOptions } from "./types.ts";
export { parseDuration } from "./run_spec.ts";

/**
 * Checks what commander parsed for `run` and gathers it into {@link RunOptions}; reads the task
 * from stdin when none was given. Throws a usage error of `command` for a bad combination.
 */
export async function runOptions(
  command: Command,
  words: string[],
  raw: RawRunOptions,
): Promise<RunOptions> {
  const checked = await checkRunOptions(words, raw);
  if ("usage" in checked) throw usageError(command, checked.usage);
  return checked;
}

/** Adds `run` to `parent`. */
export function defineRun(parent: Command, _ctx: CliContext): Command {
  const run = parent
    .command(RUN_COMMAND)
    .summary("run a task headless, streaming the answer to stdout")
    .description(
      "Runs one task without a prompt and exits. Reads the task from stdin when none is given.",
    )
    .argument("[task...]", "the task; several words are joined with spaces");
  addOptions(run, RUN_OPTIONS);
  addPermissionOptions(run);
  run.addHelpText(
    "after",
    "\nExit codes: 0 done, 1 failed or stopped at a limit, 2 bad usage or configuration, " +
      "3 finished but\nsome actions were refused (listed on stderr with what would allow them), " +
      "130 cancelled,\n143 stopped by SIGTERM.",
  );
  // `fast_run.ts` runs plain `run` command lines the same way without commander: what this
  // action does, that path must do too.
  return action(run, async (words: string[], raw: RawRunOptions) => {
    const options = await runOptions(run, words, raw);
    const { runCommand } = await lazyImport<RunModule>("cli/run.ts");
    return await runCommand(options);
  });
}
