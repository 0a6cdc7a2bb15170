/**
 * Turns `[permissions]` and `[sandbox]` configuration into the gate every tool call passes and
 * the shell launcher `bash` runs through; also the checks front ends run before starting.
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import type { ApprovalBroker } from "../agent/approval.ts";
import { ConfigError } from "../config/errors.ts";
import type { PermissionsConfig, SandboxConfig } from "../config/types.ts";
import type { ReadGuard, ShellLauncher } from "../../tools/types.ts";
import { canonicalPath, WriteScope } from "./confine.ts";
import { revokeWritePermissions } from "./deno_perms.ts";
import { PermissionGate } from "./gate.ts";
import { Policy, type RuleSet } from "./policy.ts";
import { PermissionReadGuard } from "./read_guard.ts";
import { type Preset, presetNamed, PRESETS, SESSION_MODES } from "./presets.ts";
import { parseRule, type Rule } from "./rules.ts";
import { refuseBroadRoots } from "./roots.ts";
import {
  backendFor,
  createSandboxShell,
  type SandboxBackend,
  type SandboxPrograms,
  SandboxUnavailableError,
} from "./sandbox/mod.ts";
import { findTrustedProgram } from "../../tools/shell.ts";
import type { Workspace } from "../../tools/workspace/types.ts";

/** Options of {@linkcode setupPermissions}. */
export interface PermissionSetupOptions {
  /** Where the tools run: paths are resolved and commands started there. Default this machine. */
  workspace?: Workspace;
  permissions: PermissionsConfig;
  sandbox: SandboxConfig;
  /** Canonical workspace root. */
  workspaceRoot: string;
  /** The session-private temp directory (always writable outside read-only mode). */
  tempDir: string;
  env: Record<string, string | undefined>;
  /** Interactive front ends pass one; headless runs and subagents do not and fail closed. */
  broker?: ApprovalBroker;
  /** Platform override for tests; default `Deno.build.os`. */
  os?: typeof Deno.build.os;
  /**
   * Program lookup override for tests (e.g. to simulate a missing bwrap). Default: `PATH` from
   * `env`, skipping relative entries and entries in the writable roots.
   */
  which?: (name: string) => Promise<string | undefined>;
  /**
   * The directory Reasonix was started in, whose `reasonix.toml`, `.mcp.json` and `.env` it
   * reads; its control files are protected like the workspace root's. Default: the root.
   */
  projectDir?: string;
}

/** Everything the permission layer gives a runtime. */
export interface Permissions {
  /** The active preset; {@linkcode Permissions.setMode} changes it. */
  readonly preset: Preset;
  policy: Policy;
  scope: WriteScope;
  gate: PermissionGate;
  /** The launcher `bash` must use (`ToolContext.shell`). */
  shell: ShellLauncher;
  /** Read rules per file, for searches and listings (`ToolContext.readGuard`). */
  readGuard: ReadGuard;
  backend: SandboxBackend;
  /**
   * Raises the process-level second wall for the preset (read-only: revoke Deno's write and
   * FFI permissions). Call once boot is complete; it cannot be undone.
   */
  lockDown(): Promise<void>;
  /**
   * Switches the permission mode for every later call of every agent on these permissions
   * (the policy's fallback and whether `bash` has network; the sandbox boundary stays). Only
   * between {@linkcode SESSION_MODES}; anything else throws `ConfigError` and changes nothing.
   */
  setMode(mode: string): Preset;
  /**
   * When this mode or a rule lets commands run without asking, checks that their sandbox is
   * installed and works here, so a missing backend stops start-up instead of a call mid-run.
   * Throws `ConfigError` with the package to install and the mode that works without it.
   */
  preflight(opts?: { signal?: AbortSignal }): Promise<void>;
}

/** Whether commands may run without a person approving each one. */
function commandsRunUnasked(preset: Preset, rules: RuleSet): boolean {
  if (preset.strict) return preset.fallback.bash === "allow";
  if (preset.fallback.bash === "allow") return true;
  return rules.allow.some((r) =>
    r.kind.startsWith("bash_") || (r.kind === "tool" && r.pattern.test("Bash"))
  );
}

function parseList(
  list: "allow" | "ask" | "deny",
  texts: readonly string[],
  home?: string,
): Rule[] {
  return texts.map((text) => {
    try {
      return parseRule(text, { home });
    } catch (error) {
      throw new ConfigError({
        problem: `[permissions].${list}${list === "ask" ? "" : ` (or --${list})`}: ${
          (error as Error).message
        }`,
        fix: "write rules as Tool, Tool(specifier) such as Bash(git status:*) or Edit(docs/**), " +
          "or Bash=<exact command line>; see docs/PERMISSIONS.md",
        cause: error,
      });
    }
  });
}

function expandHome(path: string, home: string | undefined): string {
  if ((path === "~" || path.startsWith("~/")) && home) return join(home, path.slice(1));
  return path;
}

function parseRules(permissions: PermissionsConfig, home: string | undefined): RuleSet {
  return {
    allow: parseList("allow", permissions.allow, home),
    ask: parseList("ask", permissions.ask, home),
    deny: parseList("deny", permissions.deny, home),
  };
}

/**
 * Applies the permission mode a project file asked for, but only when it is at least as
 * strict as the mode the user (config or defaults) chose: a cloned repository can tighten
 * permissions, never loosen them. An explicit `--permission-mode` wins over both. Returns the
 * permissions to use and a warning when the project's mode was refused.
 */
export function applyProjectMode(
  permissions: PermissionsConfig,
  flagGiven: boolean,
): { permissions: PermissionsConfig; warning?: string } {
  const asked = permissions.project_mode;
  if (asked === undefined || flagGiven) return { permissions };
  const project = presetNamed(asked);
  const user = presetNamed(permissions.mode);
  if (PRESETS.indexOf(project) <= PRESETS.indexOf(user)) {
    return { permissions: { ...permissions, mode: project.name } };
  }
  return {
    permissions,
    warning:
      `${permissions.project_mode_source ?? "the project reasonix.toml"} asks for permission ` +
      `mode "${asked}", which is looser than "${user.name}"; a project file can only tighten it. ` +
      `Use --permission-mode ${project.name} or set it in your user config to accept.`,
  };
}

/**
 * Checks the mode and every rule without touching the file system; throws `ConfigError` (exit
 * code 2 in the CLI) naming what is wrong. Front ends call it before starting anything.
 */
export function validatePermissionsConfig(
  permissions: PermissionsConfig,
  env: Record<string, string | undefined>,
): void {
  presetNamed(permissions.mode);
  parseRules(permissions, env.HOME ?? env.USERPROFILE);
}

/** Builds the policy, write scope, gate and sandboxed shell from configuration. */
export async function setupPermissions(opts: PermissionSetupOptions): Promise<Permissions> {
  const preset = presetNamed(opts.permissions.mode);
  const home = opts.env.HOME ?? opts.env.USERPROFILE;
  const rules = parseRules(opts.permissions, home);
  // Every root is judged by where it really leads (symlinks followed) before it is trusted.
  const workspace = opts.workspace;
  const on = { workspace };
  const root = await canonicalPath(opts.workspaceRoot, on);
  const place = async (path: string) => {
    const expanded = expandHome(path, home);
    return await canonicalPath(isAbsolute(expanded) ? expanded : resolve(root, expanded), on);
  };
  const tempDir = await canonicalPath(opts.tempDir, on);
  const allowWrite = await Promise.all(opts.sandbox.allow_write.map(place));
  const forbidRead = await Promise.all(opts.sandbox.forbid_read.map(place));
  if (preset.sandbox === "workspace-write") {
    const configured = opts.sandbox.workspace_root;
    refuseBroadRoots([
      ...opts.sandbox.allow_write.map((written, i) => ({
        key: "allow_write",
        written,
        resolved: allowWrite[i],
        at: opts.sandbox.allow_write_at?.[i],
      })),
      ...(configured
        ? [{
          key: "workspace_root",
          written: configured,
          resolved: root,
          at: opts.sandbox.workspace_root_at,
        }]
        : []),
    ], home === undefined ? undefined : await canonicalPath(home, on));
  }
  const scope = new WriteScope([root, tempDir, ...allowWrite], forbidRead);
  const projectDir = await canonicalPath(opts.projectDir ?? root, on);

  const os = opts.os ?? workspace?.os ?? Deno.build.os;
  const backend = backendFor(os);
  // Resolved once, now: never from a relative PATH entry or one a sandboxed command can write.
  const untrusted = [...new Set([...scope.roots(), projectDir])];
  const path = opts.env.PATH ?? Deno.env.get("PATH");
  const which = opts.which ??
    ((name: string) => findTrustedProgram(name, { path, untrusted, workspace }));
  const programs: SandboxPrograms = {
    bash: await which("bash"),
    setsid: await which("setsid"),
    bwrap: backend === "bubblewrap" ? await which("bwrap") : undefined,
  };
  const policy = new Policy({
    preset,
    rules,
    workspaceRoot: root,
    shellSandbox: backend !== "none",
  });
  // Kept so a mode switch changes what later commands get (the launcher reads it per launch).
  const shellOptions = {
    mode: preset.sandbox,
    network: preset.network,
    scope,
    tempDir,
    os,
    programs,
    presetName: preset.name,
    controlDirs: [...new Set([root, projectDir])],
    allowUnixSockets: opts.sandbox.allow_unix_sockets ?? false,
    workspace,
  };
  const shell = createSandboxShell(shellOptions);
  const gate = new PermissionGate({
    policy,
    scope,
    workspaceRoot: root,
    shellSandboxed: backend !== "none" && preset.sandbox !== "none",
    broker: opts.broker,
    workspace,
  });
  let locked = false;
  return {
    get preset(): Preset {
      return policy.preset;
    },
    setMode(mode: string): Preset {
      const next = presetNamed(mode);
      const current = policy.preset;
      const switchable = (p: Preset) => SESSION_MODES.includes(p.name);
      if (!switchable(current) || !switchable(next)) {
        throw new ConfigError({
          problem: `cannot switch the permission mode from "${current.name}" to "${next.name}" ` +
            "during a session",
          fix: `a session can move between ${SESSION_MODES.join(", ")}; start Reasonix with ` +
            `--permission-mode ${next.name} for ${next.name}`,
        });
      }
      policy.usePreset(next);
      shellOptions.network = next.network;
      shellOptions.presetName = next.name;
      return next;
    },
    policy,
    scope,
    gate,
    shell,
    readGuard: new PermissionReadGuard(policy, scope, on),
    backend,
    async preflight(opts = {}) {
      if (preset.sandbox === "none" || !commandsRunUnasked(preset, rules)) return;
      try {
        await shell.preflight?.(opts);
      } catch (error) {
        if (!(error instanceof SandboxUnavailableError)) throw error;
        // Nothing has run yet: the sentence about the refused command does not apply.
        throw new ConfigError({
          problem: error.message.replace(/ The command was not run:.*$/, ""),
          cause: error,
        });
      }
    },
    async lockDown() {
      if (locked || !preset.strict) return;
      locked = true;
      // Nothing may be written from now on, so the (still empty) temp dir goes first.
      await Deno.remove(tempDir).catch(() => {});
      await revokeWritePermissions();
    },
  };
}
