/**
 * Adds options declared as data ({@link OptionSpec}) to commander commands.
 *
 * @module
 */
import { type Command, Option } from "commander";
import { PERMISSION_OPTIONS } from "../permission_flags.ts";
import type { OptionSpec } from "./option_spec.ts";

const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

/** Adds `specs` to `command`, in order. */
export function addOptions(command: Command, specs: readonly OptionSpec[]): Command {
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.description);
    if (spec.choices) option.choices(spec.choices);
    if (spec.repeatable) option.argParser(collect);
    if (spec.conflicts) option.conflicts(spec.conflicts);
    command.addOption(option);
  }
  return command;
}

/** Adds the permission options (`--permission-mode`, `--allow`, …) to `command`. */
export function addPermissionOptions(command: Command): Command {
  return addOptions(command, PERMISSION_OPTIONS);
}
