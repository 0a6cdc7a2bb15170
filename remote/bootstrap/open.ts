/**
 * Opens a remote workspace: resolves the target through ssh config, connects (host key,
 * login), probes the host once and checks the workspace path, so every failure is reported
 * before a session starts and names what to fix.
 *
 * @module
 */
import { posix } from "node:path";
import { type RemoteCallbacks, SshConnection } from "../connection.ts";
import { RemoteError } from "../errors.ts";
import { type RemoteTargetSpec, resolveTarget } from "../target.ts";
import { RemoteWorkspace } from "../workspace.ts";
import { probeHost, type RemoteProbe } from "./probe.ts";

/** Options of {@linkcode openRemoteWorkspace}. */
export interface OpenRemoteOptions extends RemoteCallbacks {
  /** Where to work. */
  target: RemoteTargetSpec;
  /** The local home (`~/.ssh/config`, `known_hosts`, default identities). */
  home: string;
  /** The local user name (the default login). */
  localUser: string;
  /** `SSH_AUTH_SOCK`. */
  agentSocket?: string;
  /** known_hosts files; default `~/.ssh/known_hosts`. */
  knownHostsFiles?: string[];
  /** ssh config text; default `~/.ssh/config`. */
  sshConfig?: string;
  /** Extra identity files, tried first. */
  identityFiles?: string[];
  /** Reconnect attempts after a drop (default 5). */
  reconnectAttempts?: number;
  signal?: AbortSignal;
}

/** An open remote workspace. */
export interface OpenedRemote extends AsyncDisposable {
  workspace: RemoteWorkspace;
  /** The canonical workspace directory on the host. */
  root: string;
  /** What the start-up probe found. */
  probe: RemoteProbe;
  /** `ssh://user@host:port/path`: the session key and the name in messages. */
  url: string;
  close(): Promise<void>;
}

/** Connects, probes and checks the path; throws {@linkcode RemoteError} naming what failed. */
export async function openRemoteWorkspace(opts: OpenRemoteOptions): Promise<OpenedRemote> {
  const target = await resolveTarget(opts.target, {
    home: opts.home,
    localUser: opts.localUser,
    sshConfig: opts.sshConfig,
  });
  if (opts.identityFiles?.length) {
    target.identityFiles = [...new Set([...opts.identityFiles, ...target.identityFiles])];
  }
  const connection = await SshConnection.open({ ...opts, target });
  try {
    const probe = await probeHost(
      connection,
      opts.target.path.startsWith("~") ? "." : opts.target.path,
      {
        signal: opts.signal,
      },
    );
    const workspace = new RemoteWorkspace(connection, { os: probe.os, env: probe.env });
    const home = probe.env.HOME ?? "/";
    const wanted = opts.target.path === "~"
      ? home
      : opts.target.path.startsWith("~/")
      ? posix.join(home, opts.target.path.slice(2))
      : opts.target.path;
    let root: string;
    try {
      root = await workspace.realPath(wanted, { signal: opts.signal });
      if (!(await workspace.stat(root)).isDirectory) throw new Error("not a directory");
    } catch (error) {
      throw new RemoteError(
        "remote_path_missing",
        `${wanted} on ${connection.label} ${
          (error as Error).message === "not a directory" ? "is not a directory" : "does not exist"
        }; create it there (mkdir -p ${wanted}) or pass another path.`,
        { cause: error },
      );
    }
    for (const program of ["bash"] as const) {
      if (!probe.programs[program]) {
        throw new RemoteError(
          "remote_tool_missing",
          `${connection.label} has no ${program} on the login PATH (${
            probe.env.PATH ?? "unset"
          }); ` +
            `the bash tool needs it: install the ${program} package there.`,
        );
      }
    }
    const t = target;
    const url = `ssh://${t.user}@${t.hostName}${t.port === 22 ? "" : `:${t.port}`}${root}`;
    return {
      workspace,
      root,
      probe,
      url,
      close: () => connection.close(),
      [Symbol.asyncDispose]: () => connection.close(),
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
