/**
 * The permission flags shared by `reasonix run` and the interactive front end:
 * `--permission-mode`, `--allow`, `--deny` and `--trust-project`.
 *
 * @module
 */
import { type Command, Option } from "commander";

/** The permission settings given on the command line. */
export interface PermissionFlags {
  /** A preset name; checked where the policy is built, which lists the valid ones. */
  permissionMode?: string;
  allow?: string[];
  deny?: string[];
  /** Trust this project's declarations for this run only. */
  trustProject?: true;
}

const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

/** Adds the permission options to `command`. */
export function addPermissionOptions(command: Command): Command {
  return command
    .addOption(
      // Not `.choices()`: the policy's own message names every preset and what it does.
      new Option(
        "--permission-mode <mode>",
        "read-only, ask (default), accept-edits, auto or yolo",
      ),
    )
    .addOption(
      new Option("--allow <rule>", 'allow a tool or command, e.g. "Bash(npm test:*)" (repeatable)')
        .argParser(collect),
    )
    .addOption(
      new Option("--deny <rule>", 'deny a tool or command, e.g. "Bash(git push:*)" (repeatable)')
        .argParser(collect),
    )
    .addOption(
      new Option(
        "--trust-project",
        "start the MCP servers and apply the loosening settings this project's files declare, " +
          "for this run only (see reasonix trust)",
      ),
    );
}

/** The permission flags from `command.opts()` of a command with {@link addPermissionOptions}. */
export function permissionFlags(values: Record<string, unknown>): PermissionFlags {
  const list = (v: unknown) => Array.isArray(v) ? v.map(String) : undefined;
  return {
    permissionMode: typeof values.permissionMode === "string" ? values.permissionMode : undefined,
    allow: list(values.allow),
    deny: list(values.deny),
    trustProject: values.trustProject === true ? true : undefined,
  };
}
