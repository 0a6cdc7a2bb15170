/**
 * `--remote`: the command line's side of remote-SSH workspaces. Resolves a target (written
 * out, or a `[remote.<name>]` table of the user's config.toml), opens it through
 * `remote/bootstrap` with this terminal's answers to host-key and passphrase questions (or the
 * headless policy: unknown keys fail closed unless `--accept-new-host-key`), reports the probe,
 * and hands the host a {@linkcode HostWorkspace}. Loaded only when `--remote` is given.
 *
 * @module
 */
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { ConfigError, reasonixHome, type RemoteTargetConfig } from "../core/config/mod.ts";
import type { HostWorkspace } from "../core/host/open.ts";
import type { RemoteRequest, RemoteSession } from "./commands/types.ts";
import type { HttpServerSpec } from "../plugins/mcp/types.ts";
import {
  describeProbe,
  forwardLocal,
  type OpenedRemote,
  openRemoteWorkspace,
  parseRemoteTarget,
  RemoteError,
  type RemoteTargetSpec,
  type UnknownHostKey,
} from "../remote/mod.ts";

/**
 * The named target `name` from the user's config.toml. Only the user's file: a cloned
 * repository's reasonix.toml must not be able to point a name at another machine.
 */
async function namedTarget(
  name: string,
  env: Record<string, string | undefined>,
): Promise<{ spec: RemoteTargetSpec; identity?: string }> {
  const file = join(reasonixHome(env), "config.toml");
  let table: Record<string, RemoteTargetConfig> = {};
  try {
    const parsed = parseToml(await Deno.readTextFile(file)) as { remote?: unknown };
    if (parsed.remote && typeof parsed.remote === "object") {
      table = parsed.remote as Record<string, RemoteTargetConfig>;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new ConfigError({ file, problem: `cannot read [remote]: ${error}`, cause: error });
    }
  }
  const entry = table[name];
  if (!entry) {
    const known = Object.keys(table);
    throw new ConfigError({
      file,
      problem: `--remote ${name}: no such target${
        known.length ? ` (known: ${known.join(", ")})` : ""
      }`,
      fix: `write --remote user@host:/path, or add [remote.${name}] with host and path to ${file}`,
    });
  }
  const home = env.HOME ?? "";
  const identity = entry.identity_file?.replace(/^~(?=\/|$)/, home);
  if (entry.target) return { spec: parseRemoteTarget(entry.target), identity };
  if (!entry.host || !entry.path) {
    throw new ConfigError({
      file,
      problem: `[remote.${name}] needs host and path (or target = "user@host:/path")`,
    });
  }
  return {
    spec: {
      host: entry.host,
      path: entry.path,
      ...(entry.user ? { user: entry.user } : {}),
      ...(entry.port ? { port: entry.port } : {}),
    },
    identity,
  };
}

const encoder = new TextEncoder();

function say(text: string): void {
  Deno.stderr.writeSync(encoder.encode(text));
}

/** One line from the terminal; `hidden` turns echo off (passphrases). */
async function ask(question: string, hidden = false): Promise<string> {
  say(question);
  if (hidden) Deno.stdin.setRaw(true);
  const bytes: number[] = [];
  const buffer = new Uint8Array(1);
  try {
    while (true) {
      const n = await Deno.stdin.read(buffer);
      if (n === null) break;
      const c = buffer[0];
      if (c === 3) throw new Error("interrupted");
      if (c === 10 || c === 13) break;
      if (c === 127 || c === 8) bytes.pop();
      else bytes.push(c);
    }
  } finally {
    if (hidden) {
      Deno.stdin.setRaw(false);
      say("\n");
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** The host-key answer: interactive asks, headless follows `--accept-new-host-key`. */
function hostKeyCallback(req: RemoteRequest): (key: UnknownHostKey) => Promise<boolean> {
  return async (key) => {
    if (req.acceptNewHostKey) {
      say(
        `reasonix: trusting the new host key of ${key.host}: ${key.keyType} ${key.fingerprint}\n`,
      );
      return true;
    }
    if (!req.interactive) return false;
    const answer = await ask(
      `The authenticity of host ${key.host} can't be established.\n` +
        `${key.keyType} key fingerprint is ${key.fingerprint}.\n` +
        (key.knownTypes.length
          ? `known_hosts lists other key types for it (${key.knownTypes.join(", ")}).\n`
          : "") +
        "Trust it and add it to known_hosts? (yes/no) ",
    );
    return /^y(es)?$/i.test(answer.trim());
  };
}

/** Whether `text` names a `[remote]` target rather than spelling one out. */
function isName(text: string): boolean {
  return /^[A-Za-z0-9_.-]+$/.test(text);
}

/** How long a remote MCP server's command may take to open its port. */
const REMOTE_MCP_START_MS = 15_000;

/**
 * The host's workspace for `--remote`: connects once the configuration is loaded. Errors are
 * `ConfigError`s (exit code 2) naming what to fix.
 */
export function remoteWorkspace(
  req: RemoteRequest,
  env: Record<string, string | undefined>,
): RemoteSession {
  let opened: OpenedRemote | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  const open = async (): Promise<HostWorkspace> => {
    const { spec, identity } = isName(req.target)
      ? await namedTarget(req.target, env)
      : { spec: parseRemoteTarget(req.target), identity: undefined };
    const home = env.HOME ?? env.USERPROFILE ?? "/";
    try {
      const got = await openRemoteWorkspace({
        target: spec,
        home,
        localUser: env.USER ?? env.LOGNAME ?? "root",
        agentSocket: env.SSH_AUTH_SOCK,
        ...(identity ? { identityFiles: [identity] } : {}),
        confirmHostKey: hostKeyCallback(req),
        ...(req.interactive
          ? { passphrase: (file: string) => ask(`Enter passphrase for ${file}: `, true) }
          : {}),
        onStatus: (status) => {
          if (!req.interactive) say(`reasonix: ${status.message}\n`);
        },
      });
      const remote = opened = got;
      if (!req.interactive) {
        say(`reasonix: remote workspace ${remote.url}\n`);
        for (const line of describeProbe(remote.probe)) say(`reasonix:   ${line}\n`);
      }
      for (const spec of req.forwards ?? []) {
        let forward;
        try {
          forward = forwardLocal(remote.workspace.connection, {
            remotePort: spec.remotePort,
            ...(spec.localPort ? { localPort: spec.localPort } : {}),
          });
        } catch (error) {
          for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
          await remote.close();
          throw new ConfigError({
            problem: `--forward ${spec.remotePort}: cannot listen on 127.0.0.1:` +
              `${spec.localPort ?? 0} here: ${(error as Error).message}`,
            fix: "pick another local port: --forward <remote-port>:<local-port>",
            cause: error,
          });
        }
        cleanups.push(() => forward.close());
        // The URL a person opens: on stderr, so `run --json` output stays one document.
        say(
          `reasonix: forwarding http://127.0.0.1:${forward.port}/ -> 127.0.0.1:` +
            `${spec.remotePort} on the remote host (${remote.url})\n`,
        );
      }
      return {
        workspace: remote.workspace,
        root: remote.root,
        env: remote.probe.env,
        platform: `${remote.probe.os} ${remote.probe.arch}`,
        key: remote.url,
        close: async () => {
          for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
          await remote.close();
        },
      };
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      throw new ConfigError({
        problem: `--remote ${req.target}: ${error.message}`,
        cause: error,
      });
    }
  };
  const tunnel = async (spec: HttpServerSpec): Promise<URL> => {
    const remote = opened;
    if (!remote) throw new Error("the remote workspace is not open");
    const port = Number(spec.url.port || (spec.url.protocol === "https:" ? 443 : 80));
    if (spec.remote?.command) {
      const child = await remote.workspace.spawn([spec.remote.command, ...spec.remote.args], {
        cwd: remote.root,
      });
      // Drained: a server that logs must never block on a full channel.
      child.stdout.pipeTo(new WritableStream()).catch(() => {});
      child.stderr.pipeTo(new WritableStream()).catch(() => {});
      cleanups.push(async () => {
        child.kill("SIGTERM");
        await Promise.race([child.status, new Promise((r) => setTimeout(r, 2000))]);
      });
      await waitForRemotePort(remote, spec.url.hostname, port, child.status);
    }
    const forward = forwardLocal(remote.workspace.connection, {
      remoteHost: spec.url.hostname,
      remotePort: port,
    });
    cleanups.push(() => forward.close());
    const local = new URL(spec.url.href);
    local.protocol = "http:";
    local.hostname = "127.0.0.1";
    local.port = String(forward.port);
    return local;
  };
  return { open, tunnel };
}

/** Waits until `host:port` on the remote host accepts a connection (or the server exits). */
async function waitForRemotePort(
  remote: OpenedRemote,
  host: string,
  port: number,
  exited: Promise<unknown>,
): Promise<void> {
  let done = false;
  exited.then(() => done = true);
  const deadline = Date.now() + REMOTE_MCP_START_MS;
  while (Date.now() < deadline) {
    if (done) throw new Error(`its command exited before it listened on ${host}:${port}`);
    const client = await remote.workspace.connection.client();
    const ok = await new Promise<boolean>((resolve) => {
      client.forwardOut("127.0.0.1", 0, host, port, (error, channel) => {
        if (error) return resolve(false);
        channel.close();
        resolve(true);
      });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `nothing listened on ${host}:${port} there within ${REMOTE_MCP_START_MS / 1000}s`,
  );
}
