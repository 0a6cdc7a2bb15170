/**
 * The OS sandbox `bash` runs in: the launcher, the bubblewrap and Seatbelt command lines it
 * builds from one {@linkcode SandboxSpec}, the seccomp filter and the control-file guards.
 *
 * @module
 */
export { bwrapArgs, bwrapBaseArgs, filtersUnixSockets } from "./bwrap.ts";
export {
  type ControlPlan,
  controlPlan,
  GIT_CONTROL_FILES,
  type Guard,
  PROJECT_CONTROL_FILES,
  settleGuards,
} from "./control.ts";
export {
  backendFor,
  createSandboxShell,
  type SandboxBackend,
  SandboxPathError,
  type SandboxPrograms,
  type SandboxShellOptions,
  SandboxUnavailableError,
  whichOnPath,
  WriteScopeError,
} from "./launcher.ts";
export {
  AUDIT_ARCH,
  encodeFilter,
  SECCOMP_FD,
  type SeccompArch,
  seccompArch,
  type SockFilter,
  unixSocketFilter,
  withSeccompFd,
} from "./seccomp.ts";
export { seatbeltArgs, type SeatbeltProfile, seatbeltProfile } from "./seatbelt.ts";
export type { HiddenPath, SandboxSpec } from "./spec.ts";
