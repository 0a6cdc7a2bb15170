/**
 * Permission presets (`--permission-mode`, `[permissions].mode`). A preset answers for calls
 * no rule matched, and selects the OS sandbox boundary `bash` runs in.
 *
 * @module
 */
import type { PermissionDecision } from "../agent/events.ts";
import { ConfigError } from "../config/errors.ts";

/** Canonical preset names. */
export type PresetName = "read-only" | "ask" | "accept-edits" | "auto" | "yolo";

/** Where `bash` may write. */
export type SandboxMode = "read-only" | "workspace-write" | "none";

/** What kind of call the policy is deciding. */
export type CallKind = "read" | "edit" | "bash" | "capability" | "other";

/** A permission preset. */
export interface Preset {
  name: PresetName;
  /** Other names accepted for it (Claude Code and Codex spellings). */
  aliases: readonly string[];
  /** One line for help and docs. */
  summary: string;
  /** The answer when no rule matched, per kind of writer. Readers always fall back to allow. */
  fallback: Readonly<Record<Exclude<CallKind, "read">, PermissionDecision>>;
  /** The boundary `bash` runs inside. */
  sandbox: SandboxMode;
  /** Whether `bash` keeps network access inside the sandbox. */
  network: boolean;
  /** Whether file writers are confined to the writable roots. */
  confineWrites: boolean;
  /** Writers are refused outright: allow rules, grants and approvals cannot lift it. */
  strict: boolean;
}

/** Every preset, strictest first. */
export const PRESETS: readonly Preset[] = [
  {
    name: "read-only",
    aliases: ["readonly"],
    summary: "reads and searches only: no file writers and no shell commands",
    fallback: { edit: "deny", bash: "allow", capability: "deny", other: "deny" },
    sandbox: "read-only",
    network: false,
    confineWrites: true,
    strict: true,
  },
  {
    name: "ask",
    aliases: ["default"],
    summary: "asks before every edit, command and other writer (default)",
    fallback: { edit: "ask", bash: "ask", capability: "allow", other: "ask" },
    sandbox: "workspace-write",
    network: true,
    confineWrites: true,
    strict: false,
  },
  {
    name: "accept-edits",
    aliases: ["acceptEdits"],
    summary: "file edits inside the writable roots run without asking; commands ask",
    fallback: { edit: "allow", bash: "ask", capability: "allow", other: "ask" },
    sandbox: "workspace-write",
    network: true,
    confineWrites: true,
    strict: false,
  },
  {
    name: "auto",
    aliases: ["workspace-write", "full-auto"],
    summary: "edits and commands run without asking inside the workspace sandbox, no network",
    fallback: { edit: "allow", bash: "allow", capability: "allow", other: "ask" },
    sandbox: "workspace-write",
    network: false,
    confineWrites: true,
    strict: false,
  },
  {
    name: "yolo",
    aliases: ["bypassPermissions", "danger-full-access"],
    summary: "everything not explicitly denied runs, with no sandbox and no write confinement",
    fallback: { edit: "allow", bash: "allow", capability: "allow", other: "allow" },
    sandbox: "none",
    network: true,
    confineWrites: false,
    strict: false,
  },
];

/** The preset used when none is configured. */
export const DEFAULT_PRESET: PresetName = "ask";

/** Finds a preset by name or alias, or undefined. */
export function findPreset(name: string): Preset | undefined {
  const wanted = name.trim();
  return PRESETS.find((p) => p.name === wanted || p.aliases.includes(wanted));
}

/** Finds a preset by name or alias; throws `ConfigError` listing the valid names. */
export function presetNamed(name: string): Preset {
  const preset = findPreset(name);
  if (preset) return preset;
  const valid = PRESETS.map((p) => `${p.name} (${p.summary})`).join("; ");
  throw new ConfigError({
    problem: `unknown permission mode "${name}" (from --permission-mode or [permissions].mode)`,
    fix: `use one of: ${valid}`,
  });
}

/**
 * The modes an interactive session may switch between (Shift+Tab, `/permissions`), in cycle
 * order. They share one sandbox boundary and write confinement, so a switch changes only what
 * asks and whether `bash` has network; `read-only` gives up Deno permissions for good and
 * `yolo` has no sandbox, so neither is entered or left mid-session.
 */
export const SESSION_MODES: readonly PresetName[] = ["ask", "accept-edits", "auto"];

/** The mode after `current` in {@linkcode SESSION_MODES}, or undefined when it is not one. */
export function nextSessionMode(current: PresetName): PresetName | undefined {
  const i = SESSION_MODES.indexOf(current);
  return i < 0 ? undefined : SESSION_MODES[(i + 1) % SESSION_MODES.length];
}
