/**
 * Permission policy, approvals and the OS sandbox (spec §3.7, `[permissions]` and `[sandbox]`
 * of §5). {@linkcode setupPermissions} turns configuration into the gate every tool call
 * passes and the shell launcher `bash` runs through.
 *
 * @module
 */
export { canonicalPath, WriteScope } from "./confine.ts";
export { CONTROL_FILES_SUMMARY, controlFileOf, controlTargets } from "./control_files.ts";
export { MAX_MOVE_SCAN, PermissionReadGuard } from "./read_guard.ts";
export { REVOKED_IN_READ_ONLY, revokeWritePermissions } from "./deno_perms.ts";
export { PermissionGate, type PermissionGateOptions, type PermissionRecord } from "./gate.ts";
export {
  Policy,
  type PolicyCall,
  type PolicyOptions,
  type RuleSet,
  type Verdict,
  type VerdictSource,
} from "./policy.ts";
export {
  type CallKind,
  DEFAULT_PRESET,
  findPreset,
  nextSessionMode,
  type Preset,
  type PresetName,
  presetNamed,
  PRESETS,
  type SandboxMode,
  SESSION_MODES,
} from "./presets.ts";
export { parseRule, type Rule } from "./rules.ts";
export {
  analyzeShell,
  type ShellAnalysis,
  type ShellFeature,
  type ShellWord,
  type SimpleCommand,
} from "./shell_parse.ts";
export {
  backendFor,
  bwrapArgs,
  createSandboxShell,
  type SandboxBackend,
  SandboxPathError,
  type SandboxPrograms,
  type SandboxShellOptions,
  SandboxUnavailableError,
  seatbeltArgs,
  seatbeltProfile,
  WriteScopeError,
} from "./sandbox/mod.ts";
export { broadRoot, refuseBroadRoots } from "./roots.ts";
export {
  applyProjectMode,
  type Permissions,
  type PermissionSetupOptions,
  setupPermissions,
  validatePermissionsConfig,
} from "./setup.ts";
