/**
 * Where a remote workspace is: `user@host[:port]:/path`, resolved through `~/.ssh/config`
 * (Host aliases, HostName, User, Port, IdentityFile, ProxyJump) the way `ssh` resolves it.
 *
 * @module
 */
import os from "node:os";
import { join } from "node:path";
import SSHConfig from "ssh-config";
import { RemoteError } from "./errors.ts";

/** A target as written: `[user@]host[:port]:/path`. */
export interface RemoteTargetSpec {
  /** Login name; default from ssh config, else the local user. */
  user?: string;
  /** Host name or ssh-config alias. */
  host: string;
  /** Port; default from ssh config, else 22. */
  port?: number;
  /** The workspace directory on the remote host (absolute, or `~/…`). */
  path: string;
}

/** One hop of a resolved connection. */
export interface ResolvedHop {
  /** What the user wrote (alias). */
  alias: string;
  hostName: string;
  port: number;
  user: string;
  /** Identity files to try, in order (config ones first, then the defaults). */
  identityFiles: string[];
}

/** A target with ssh config applied; `jumps` are the ProxyJump hops, outermost first. */
export interface ResolvedTarget extends ResolvedHop {
  path: string;
  jumps: ResolvedHop[];
}

/**
 * Parses `[user@]host[:port]:/path`. The path must be absolute or start with `~`:
 * `dev@box:2222:/srv/app` is `{ user: "dev", host: "box", port: 2222, path: "/srv/app" }`.
 */
export function parseRemoteTarget(text: string): RemoteTargetSpec {
  const m = /^(?:([^@\s/:]+)@)?(\[[^\]]+\]|[^:@\s/]+)(?::(\d+))?:(.+)$/.exec(text.trim());
  const bad = (why: string): never => {
    throw new RemoteError(
      "remote_target_invalid",
      `--remote ${text}: ${why}; write user@host[:port]:/path/to/repo or a [remote] target name`,
    );
  };
  if (!m) return bad("not a remote target");
  const [, user, rawHost, port, path] = m;
  if (!path.startsWith("/") && !path.startsWith("~")) bad("the remote path must be absolute");
  const portNumber = port === undefined ? undefined : Number(port);
  if (portNumber !== undefined && !(portNumber > 0 && portNumber < 65536)) bad("bad port");
  return {
    ...(user ? { user } : {}),
    host: rawHost.replace(/^\[(.*)\]$/, "$1"),
    ...(portNumber ? { port: portNumber } : {}),
    path,
  };
}

/** The default identity files, in the order `ssh` tries them. */
export function defaultIdentities(home: string): string[] {
  return ["id_ed25519", "id_ecdsa", "id_rsa"].map((n) => join(home, ".ssh", n));
}

function expandTilde(path: string, home: string): string {
  return path === "~" || path.startsWith("~/") ? join(home, path.slice(1)) : path;
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Options of {@linkcode resolveTarget}. */
export interface ResolveOptions {
  /** The local home (for `~/.ssh`). */
  home: string;
  /** The local user name, the default login. */
  localUser: string;
  /** The ssh config text; default `~/.ssh/config` (missing: none). */
  sshConfig?: string;
}

/**
 * `config.compute`, with the local user name given instead of looked up: the library asks
 * `os.userInfo()`, which needs a Deno permission the command line does not hold (and would
 * prompt for on a terminal).
 */
function compute(config: SSHConfig, alias: string, localUser: string) {
  const saved = os.userInfo;
  (os as { userInfo: unknown }).userInfo = () => ({
    username: localUser,
    uid: -1,
    gid: -1,
    shell: null,
    homedir: "",
  });
  try {
    return config.compute(alias);
  } finally {
    (os as { userInfo: unknown }).userInfo = saved;
  }
}

function resolveHop(
  config: SSHConfig,
  alias: string,
  given: { user?: string; port?: number },
  opts: ResolveOptions,
): ResolvedHop & { proxyJump?: string } {
  const computed = compute(config, alias, opts.localUser);
  const configured = computed.IdentityFile;
  const files = (Array.isArray(configured) ? configured : configured ? [configured] : [])
    .map((f) => expandTilde(f, opts.home));
  const port = given.port ?? Number(one(computed.Port) ?? 22);
  return {
    alias,
    hostName: one(computed.HostName) ?? alias,
    port,
    user: given.user ?? one(computed.User) ?? opts.localUser,
    identityFiles: [...new Set([...files, ...defaultIdentities(opts.home)])],
    proxyJump: one(computed.ProxyJump),
  };
}

/** Applies ssh config to a target: aliases, user, port, identity files and ProxyJump hops. */
export async function resolveTarget(
  spec: RemoteTargetSpec,
  opts: ResolveOptions,
): Promise<ResolvedTarget> {
  let text = opts.sshConfig;
  if (text === undefined) {
    try {
      text = await Deno.readTextFile(join(opts.home, ".ssh", "config"));
    } catch {
      text = "";
    }
  }
  const config = SSHConfig.parse(text);
  const { proxyJump, ...hop } = resolveHop(config, spec.host, spec, opts);
  const jumps: ResolvedHop[] = [];
  let next = proxyJump && proxyJump !== "none" ? proxyJump : undefined;
  // Each hop may name its own ProxyJump; a loop is cut after a few hops.
  while (next && jumps.length < 8) {
    const first = next.split(",")[0].trim();
    const m = /^(?:([^@]+)@)?([^:]+)(?::(\d+))?$/.exec(first);
    if (!m) break;
    const resolved = resolveHop(config, m[2], {
      user: m[1],
      port: m[3] ? Number(m[3]) : undefined,
    }, opts);
    const { proxyJump: further, ...jump } = resolved;
    jumps.unshift(jump);
    next = further && further !== "none" ? further : undefined;
  }
  return { ...hop, path: spec.path, jumps };
}
