/**
 * The permission flags shared by `reasonix run` and the interactive front end:
 * `--permission-mode`, `--allow`, `--deny` and `--trust-project`.
 *
 * @module
 */
import type { RuntimeFlags } from "./runtime.ts";

/** `node:util` `parseArgs` options for the permission flags. */
export const PERMISSION_OPTIONS = {
  "permission-mode": { type: "string" },
  allow: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  "trust-project": { type: "boolean" },
} as const;

/** Help lines for the permission flags. */
export const PERMISSION_USAGE =
  `      --permission-mode <m> read-only, ask (default), accept-edits, auto or yolo
      --allow <rule>        allow a tool or command, e.g. "Bash(npm test:*)" (repeatable)
      --deny <rule>         deny a tool or command, e.g. "Bash(git push:*)" (repeatable)
      --trust-project       start the MCP servers and apply the loosening settings this
                            project's files declare, for this run only (see reasonix trust)`;

/** The runtime flags from parsed permission options. */
export function permissionFlags(
  values: Record<string, unknown>,
): Pick<RuntimeFlags, "permissionMode" | "allow" | "deny" | "trustProject"> {
  const list = (v: unknown) => Array.isArray(v) ? v.map(String) : undefined;
  return {
    permissionMode: typeof values["permission-mode"] === "string"
      ? values["permission-mode"]
      : undefined,
    allow: list(values.allow),
    deny: list(values.deny),
    trustProject: values["trust-project"] === true ? true : undefined,
  };
}
