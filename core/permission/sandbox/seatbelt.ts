/**
 * macOS: a Seatbelt (`sandbox-exec`) profile generated from the same {@linkcode SandboxSpec}
 * as bubblewrap. Paths are passed as `-D` parameters rather than spliced into the profile,
 * so no path can change the profile's meaning. Seatbelt matches paths, not mounts: the
 * control files are denied by name whether they exist or not, and the pinned parents of
 * hidden and control paths cannot be renamed because writing their own entry is denied.
 *
 * @module
 */
import type { SandboxSpec } from "./spec.ts";

/** The profile text and the `-D NAME=value` parameters it refers to. */
export interface SeatbeltProfile {
  profile: string;
  params: Record<string, string>;
}

const BASE = `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow ipc-posix-sem)
(allow pseudo-tty)
(allow file-ioctl)
(allow iokit-open)
(allow file-read*)
(allow file-write-data
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/dtracehelper")
  (regex #"^/dev/tty")
  (regex #"^/dev/fd/"))`;

/** Builds the profile for `spec`. */
export function seatbeltProfile(spec: SandboxSpec): SeatbeltProfile {
  const params: Record<string, string> = {};
  const lines = [BASE];
  const writable = spec.tmp ? [...spec.writable, spec.tmp] : [...spec.writable];
  if (writable.length) {
    const subpaths = writable.map((dir, i) => {
      params[`WRITABLE_ROOT_${i}`] = dir;
      return `  (subpath (param "WRITABLE_ROOT_${i}"))`;
    });
    lines.push(`(allow file-write*\n${subpaths.join("\n")})`);
  }
  // Control files (present or not) and the parents that must stay put; later rules win, so
  // these override the writable roots.
  const fixed = [...(spec.readOnly ?? []), ...(spec.guarded ?? [])];
  if (fixed.length || spec.pinned?.length) {
    const rules = [
      ...fixed.map((path, i) => {
        params[`CONTROL_${i}`] = path;
        return `  (subpath (param "CONTROL_${i}"))`;
      }),
      ...(spec.pinned ?? []).map((path, i) => {
        params[`PINNED_${i}`] = path;
        return `  (literal (param "PINNED_${i}"))`;
      }),
    ];
    lines.push(`(deny file-write*\n${rules.join("\n")})`);
  }
  if (spec.hidden.length) {
    // Later rules win in Seatbelt, so these override the broad read and write allowances.
    const hidden = spec.hidden.map((h, i) => {
      params[`FORBIDDEN_${i}`] = h.path;
      return `  (${h.dir ? "subpath" : "literal"} (param "FORBIDDEN_${i}"))`;
    });
    lines.push(`(deny file-read* file-write*\n${hidden.join("\n")})`);
  }
  if (spec.network) {
    lines.push("(allow network-outbound)\n(allow network-inbound)\n(allow system-socket)");
  } else if (spec.unixSockets) {
    // `[sandbox] allow_unix_sockets`: local sockets only, still no network.
    lines.push("(allow network-outbound (remote unix-socket))");
  } else {
    // Under `(deny default)` this is the only unix socket a command may connect to.
    lines.push(
      '(allow network-outbound (remote unix-socket (path-literal "/private/var/run/syslog")))',
    );
  }
  return { profile: `${lines.join("\n")}\n`, params };
}

/** The arguments after `sandbox-exec` that run `spec.command` inside the profile. */
export function seatbeltArgs(spec: SandboxSpec): string[] {
  const { profile, params } = seatbeltProfile(spec);
  const args = ["-p", profile];
  for (const [name, value] of Object.entries(params)) args.push(`-D${name}=${value}`);
  args.push("--", "/usr/bin/env", `TMPDIR=${spec.tmp ?? "/tmp"}`, spec.shell, "-c", spec.command);
  return args;
}
