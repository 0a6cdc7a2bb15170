/**
 * Linux: the bubblewrap (`bwrap`) command line for a {@linkcode SandboxSpec}. The whole file
 * system is mounted read-only, then the writable roots are bound read-write on top, then the
 * pinned directories onto themselves, then the control files read-only, and `forbid_read`
 * paths are covered last so nothing can re-expose them. Each layer is bound from the host's
 * tree, so a later bind of a directory would drop what an earlier one put inside it: hence
 * outer directories first. The command gets new PID, IPC and (without network) network
 * namespaces, a private `/dev`, `/proc` and `/tmp`, and dies with its parent, so no
 * background process outlives the call. Without network it also gets the seccomp filter that
 * refuses unix sockets, unless the spec allows them.
 *
 * @module
 */
import { SECCOMP_FD } from "./seccomp.ts";
import type { SandboxSpec } from "./spec.ts";

/** Whether the command runs under the unix-socket filter (read from {@linkcode SECCOMP_FD}). */
export function filtersUnixSockets(spec: Pick<SandboxSpec, "network" | "unixSockets">): boolean {
  return !spec.network && !spec.unixSockets;
}

/** Outer directories before the ones inside them. */
function outerFirst(paths: readonly string[]): string[] {
  const depth = (p: string) => p.split("/").length;
  return [...new Set(paths)].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
}

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
  for (const dir of outerFirst(spec.writable)) args.push("--bind", dir, dir);
  for (const dir of outerFirst(spec.pinned ?? [])) args.push("--bind", dir, dir);
  for (const path of outerFirst(spec.readOnly ?? [])) args.push("--ro-bind", path, path);
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
    ...(filtersUnixSockets(spec) ? ["--seccomp", String(SECCOMP_FD)] : []),
    "--chdir",
    spec.cwd,
    "--",
    spec.shell,
    "-c",
    spec.command,
  );
  return args;
}
