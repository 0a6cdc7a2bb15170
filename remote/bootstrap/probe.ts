/**
 * The one start-up probe of a remote host: OS, architecture, login shell, the programs the
 * tools and the sandbox use (`rg`, `bwrap`, `git`, `bash`, `setsid`), free space at the
 * workspace, and the login environment. One exec channel, read-only: nothing is installed.
 *
 * @module
 */
import type { WorkspaceOs } from "../../tools/workspace/types.ts";
import type { SshConnection } from "../connection.ts";
import { shellQuote } from "../sftpfs/sftp_fs.ts";

/** The programs the probe looks for. */
export const PROBED_PROGRAMS = ["rg", "bwrap", "git", "bash", "setsid"] as const;

/** What the probe found. */
export interface RemoteProbe {
  os: WorkspaceOs;
  /** `uname -m`, e.g. `x86_64`. */
  arch: string;
  /** The login shell (`$SHELL`). */
  shell: string;
  /** Where each probed program is, or null when it is not on the login `PATH`. */
  programs: Record<(typeof PROBED_PROGRAMS)[number], string | null>;
  /** Free bytes on the file system of the workspace path, or null when unknown. */
  freeBytes: number | null;
  /** The login environment. */
  env: Record<string, string>;
}

const OS_NAMES: Record<string, WorkspaceOs> = {
  Linux: "linux",
  Darwin: "darwin",
  FreeBSD: "freebsd",
  NetBSD: "netbsd",
  AIX: "aix",
  SunOS: "solaris",
};

/** The probe script (POSIX sh); sections are separated by marker lines. */
export function probeScript(path: string): string {
  const lines = [
    'echo "@os $(uname -s)"',
    'echo "@arch $(uname -m)"',
    'echo "@shell $SHELL"',
    ...PROBED_PROGRAMS.map((p) => `echo "@prog ${p} $(command -v ${p} 2>/dev/null)"`),
    `echo "@df $(df -Pk ${shellQuote(path)} 2>/dev/null | awk 'NR==2 {print $4}')"`,
    'echo "@env"',
    "env",
  ];
  // The login shell may be anything; the script is sh.
  return `exec /bin/sh -c ${shellQuote(lines.join("\n"))}`;
}

/** Parses the probe's output. */
export function parseProbe(text: string): RemoteProbe {
  const probe: RemoteProbe = {
    os: "linux",
    arch: "",
    shell: "",
    programs: { rg: null, bwrap: null, git: null, bash: null, setsid: null },
    freeBytes: null,
    env: {},
  };
  const [head, env = ""] = text.split(/^@env$/m);
  for (const line of head.split("\n")) {
    const [tag, ...rest] = line.split(" ");
    const value = rest.join(" ").trim();
    if (tag === "@os") probe.os = OS_NAMES[value] ?? "linux";
    else if (tag === "@arch") probe.arch = value;
    else if (tag === "@shell") probe.shell = value;
    else if (tag === "@prog") {
      const [name, where] = [rest[0], rest.slice(1).join(" ").trim()];
      if (name in probe.programs) {
        probe.programs[name as keyof RemoteProbe["programs"]] = where.startsWith("/")
          ? where
          : null;
      }
    } else if (tag === "@df") probe.freeBytes = /^\d+$/.test(value) ? Number(value) * 1024 : null;
  }
  for (const line of env.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(line.slice(0, eq))) {
      probe.env[line.slice(0, eq)] = line.slice(eq + 1);
    }
  }
  return probe;
}

/** Runs the probe once over `connection`. */
export async function probeHost(
  connection: SshConnection,
  path: string,
  opts: { signal?: AbortSignal } = {},
): Promise<RemoteProbe> {
  const out = await connection.run(probeScript(path), opts);
  return parseProbe(out.stdout);
}

/** One line per finding, for the start-up report. */
export function describeProbe(probe: RemoteProbe): string[] {
  const found = PROBED_PROGRAMS.map((p) => `${p} ${probe.programs[p] ? "yes" : "no"}`);
  const free = probe.freeBytes === null
    ? "unknown"
    : `${(probe.freeBytes / 1024 ** 3).toFixed(1)} GiB`;
  return [
    `${probe.os} ${probe.arch}, shell ${probe.shell || "unknown"}, free space ${free}`,
    found.join(", "),
  ];
}
