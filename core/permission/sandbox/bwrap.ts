/**
 * Linux: the bubblewrap (`bwrap`) command line for a {@linkcode SandboxSpec}. The whole file
 * system is mounted read-only, then the writable roots are bound read-write on top, and
 * `forbid_read` paths are covered last so nothing can re-expose them. The command gets new
 * PID, IPC and (without network) network namespaces, a private `/dev`, `/proc` and `/tmp`,
 * and dies with its parent, so no background process outlives the call.
 *
 * @module
 */
import type { SandboxSpec } from "./spec.ts";

/** Namespace and lifetime flags, shared with the availability probe. */
export function bwrapBaseArgs(network: boolean): string[] {
  return [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(network ? [] : ["--unshare-net"]),
  ];
}

/** The arguments after `bwrap` that run `spec.command` inside the sandbox. */
export function bwrapArgs(spec: SandboxSpec): string[] {
  const args = [
    ...bwrapBaseArgs(spec.network),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    ...(spec.tmp ? ["--bind", spec.tmp, "/tmp"] : ["--tmpfs", "/tmp"]),
  ];
  for (const dir of spec.visible ?? []) args.push("--ro-bind", dir, dir);
  for (const dir of spec.writable) args.push("--bind", dir, dir);
  for (const hidden of spec.hidden) {
    if (hidden.dir) args.push("--tmpfs", hidden.path, "--remount-ro", hidden.path);
    else args.push("--ro-bind", "/dev/null", hidden.path);
  }
  args.push(
    "--setenv",
    "TMPDIR",
    "/tmp",
    // A writable root is its own mount; git must still find a repository above it.
    "--setenv",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "1",
    "--cap-drop",
    "ALL",
    "--chdir",
    spec.cwd,
    "--",
    spec.shell,
    "-c",
    spec.command,
  );
  return args;
}
