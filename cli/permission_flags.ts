/**
 * The permission flags shared by `reasonix run` and the interactive front end:
 * `--permission-mode`, `--allow`, `--deny` and `--trust-project`.
 *
 * @module
 */
import type { OptionSpec } from "./commands/option_spec.ts";

/** The permission settings given on the command line. */
export interface PermissionFlags {
  /** A preset name; checked where the policy is built, which lists the valid ones. */
  permissionMode?: string;
  allow?: string[];
  deny?: string[];
  /** Trust this project's declarations for this run only. */
  trustProject?: true;
}

/**
 * The permission options, as data: the command tree adds them to `run` and to the interactive
 * session (`cli/commands/options.ts`), and the fast path of `run` reads them without commander.
 */
export const PERMISSION_OPTIONS: readonly OptionSpec[] = [
  // No `choices`: the policy's own message names every preset and what it does.
  {
    flags: "--permission-mode <mode>",
    description: "read-only, ask (default), accept-edits, auto or yolo",
  },
  {
    flags: "--allow <rule>",
    description: 'allow a tool or command, e.g. "Bash(npm test:*)" (repeatable)',
    repeatable: true,
  },
  {
    flags: "--deny <rule>",
    description: 'deny a tool or command, e.g. "Bash(git push:*)" (repeatable)',
    repeatable: true,
  },
  {
    flags: "--trust-project",
    description: "start the MCP servers and apply the loosening settings this project's files " +
      "declare, for this run only (see reasonix trust)",
  },
];

/** The permission flags from `command.opts()` of a command with {@link PERMISSION_OPTIONS}. */
export function permissionFlags(values: Record<string, unknown>): PermissionFlags {
  const list = (v: unknown) => Array.isArray(v) ? v.map(String) : undefined;
  return {
    permissionMode: typeof values.permissionMode === "string" ? values.permissionMode : undefined,
    allow: list(values.allow),
    deny: list(values.deny),
    trustProject: values.trustProject === true ? true : undefined,
  };
}
