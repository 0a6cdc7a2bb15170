/**
 * One SSH connection to a remote workspace's host, kept alive for the session: host-key
 * checking against known_hosts (unknown keys through a callback, changed keys refused), login
 * by the SSH agent and identity files (passphrases through a callback), ProxyJump hops, and a
 * bounded reconnect after the connection drops. The UI is reached only through callbacks.
 *
 * @module
 */
import { join } from "node:path";
import { RemoteError } from "./errors.ts";
import {
  addKnownHost,
  fingerprint,
  knownHostsName,
  knownTypes,
  readKnownHosts,
  verifyHostKey,
} from "./known_hosts.ts";
import type { Client, ClientChannel, ConnectConfig, SFTPWrapper } from "./ssh2.ts";
import { loadSsh2 } from "./ssh2.ts";
import type { ResolvedHop, ResolvedTarget } from "./target.ts";

/** A host key the known_hosts files do not list, for the confirmation callback. */
export interface UnknownHostKey {
  /** `host` or `[host]:port`, as it would be written to known_hosts. */
  host: string;
  /** The key type, e.g. `ssh-ed25519`. */
  keyType: string;
  /** `SHA256:…`, as `ssh-keygen -l` shows it. */
  fingerprint: string;
  /** Key types known_hosts lists for this host (another type may have been offered). */
  knownTypes: string[];
}

/** The callbacks through which a connection asks the person (or the headless policy). */
export interface RemoteCallbacks {
  /**
   * An unknown host key: resolve true to trust it (it is then added to known_hosts). Absent:
   * unknown keys are refused (fail closed).
   */
  confirmHostKey?(key: UnknownHostKey): Promise<boolean>;
  /** The passphrase of an encrypted identity file, or undefined to skip that key. */
  passphrase?(file: string): Promise<string | undefined>;
  /** Connection state for the UI (`reconnecting`, `reconnected`, `lost`). */
  onStatus?(status: { state: "reconnecting" | "reconnected" | "lost"; message: string }): void;
}

/** Options of {@linkcode SshConnection.open}. */
export interface ConnectOptions extends RemoteCallbacks {
  target: ResolvedTarget;
  /** The local home, for `~/.ssh/known_hosts`. */
  home: string;
  /** known_hosts files; default `~/.ssh/known_hosts`. The first gets accepted keys. */
  knownHostsFiles?: string[];
  /** `SSH_AUTH_SOCK`, for the agent. */
  agentSocket?: string;
  /** Reconnect attempts after a drop; default 5 (backoff 250 ms doubling, capped at 4 s). */
  reconnectAttempts?: number;
  /** Connect timeout per attempt, ms; default 15 s. */
  readyTimeoutMs?: number;
  signal?: AbortSignal;
}

async function readIdentity(
  file: string,
  opts: ConnectOptions,
): Promise<{ key: string; passphrase?: string } | undefined> {
  let key: string;
  try {
    key = await Deno.readTextFile(file);
  } catch {
    return undefined;
  }
  const ssh2 = await loadSsh2();
  const parsed = ssh2.utils.parseKey(key);
  if (!(parsed instanceof Error)) return { key };
  if (!/encrypted|passphrase/i.test(parsed.message) || !opts.passphrase) return undefined;
  const passphrase = await opts.passphrase(file);
  if (passphrase === undefined) return undefined;
  const again = ssh2.utils.parseKey(key, passphrase);
  if (again instanceof Error) {
    throw new RemoteError("remote_auth_failed", `wrong passphrase for ${file}`, { cause: again });
  }
  return { key, passphrase };
}

/** The connection as it stands: one client, its SFTP session once opened. */
interface Live {
  client: Client;
  sftp?: Promise<SFTPWrapper>;
  /** Settles when this client closes. */
  closed: Promise<void>;
  jumpClients: Client[];
}

/** A kept-alive SSH connection to the workspace host. */
export class SshConnection {
  readonly #opts: ConnectOptions;
  #live: Live | undefined;
  #connecting: Promise<Live> | undefined;
  #closed = false;
  /** Bumped per established client: channels of an older generation were cut by a drop. */
  #generation = 0;
  /**
   * Identity files as read (and unlocked) once: a reconnect mid-session must not ask for a
   * passphrase again while the UI owns the terminal.
   */
  readonly #identities = new Map<
    string,
    Promise<{ key: string; passphrase?: string } | undefined>
  >();

  private constructor(opts: ConnectOptions) {
    this.#opts = opts;
  }

  /** Connects (host key, login) or throws a {@linkcode RemoteError} naming what failed. */
  static async open(opts: ConnectOptions): Promise<SshConnection> {
    const connection = new SshConnection(opts);
    await connection.#ensure();
    return connection;
  }

  /** `user@host:port`, for messages. */
  get label(): string {
    const t = this.#opts.target;
    return `${t.user}@${t.alias}${t.port === 22 ? "" : `:${t.port}`}`;
  }

  /** The generation of the current client (changes after a reconnect). */
  get generation(): number {
    return this.#generation;
  }

  /** The live client, reconnecting (with backoff) when it dropped. */
  async client(): Promise<Client> {
    return (await this.#ensure()).client;
  }

  /** The SFTP session of the live client. */
  async sftp(): Promise<SFTPWrapper> {
    const live = await this.#ensure();
    live.sftp ??= new Promise<SFTPWrapper>((resolve, reject) => {
      live.client.sftp((error, sftp) => error ? reject(error) : resolve(sftp));
    });
    live.sftp.catch(() => live.sftp = undefined);
    return await live.sftp;
  }

  /** Opens an exec channel running `command` (a shell command line on the remote host). */
  async exec(command: string, opts: { pty?: boolean } = {}): Promise<ClientChannel> {
    const client = await this.client();
    return await new Promise<ClientChannel>((resolve, reject) => {
      client.exec(command, opts.pty ? { pty: true } : {}, (error, channel) => {
        if (error) reject(error);
        else resolve(channel);
      });
    });
  }

  /** Runs `command` to completion; its stdout, stderr and exit code. */
  async run(
    command: string,
    opts: { signal?: AbortSignal } = {},
  ): Promise<{ stdout: string; stderr: string; code: number }> {
    const channel = await this.exec(command);
    return await new Promise((resolve, reject) => {
      const out: Uint8Array[] = [];
      const err: Uint8Array[] = [];
      let code = 255;
      const onAbort = () => channel.close();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      channel.on("data", (d: Uint8Array) => out.push(d));
      channel.stderr.on("data", (d: Uint8Array) => err.push(d));
      channel.on("exit", (c: number | null) => code = c ?? 255);
      channel.on("error", reject);
      channel.on("close", () => {
        opts.signal?.removeEventListener("abort", onAbort);
        if (opts.signal?.aborted) return reject(opts.signal.reason);
        const text = (parts: Uint8Array[]) => Buffer.concat(parts).toString("utf8");
        resolve({ stdout: text(out), stderr: text(err), code });
      });
    });
  }

  /** Whether the client is up now (no reconnect). */
  get connected(): boolean {
    return this.#live !== undefined;
  }

  /** Ends the connection; later calls fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const live = this.#live ?? await this.#connecting?.catch(() => undefined);
    if (!live) return;
    live.client.end();
    for (const jump of live.jumpClients) jump.end();
    await Promise.race([live.closed, new Promise((r) => setTimeout(r, 1000))]);
  }

  async #ensure(): Promise<Live> {
    if (this.#closed) {
      throw new RemoteError("remote_connection_lost", `the connection to ${this.label} is closed`);
    }
    if (this.#live) return this.#live;
    const first = this.#generation === 0;
    this.#connecting ??= (first ? this.#connect() : this.#reconnect()).finally(() => {
      this.#connecting = undefined;
    });
    return await this.#connecting;
  }

  async #reconnect(): Promise<Live> {
    const attempts = this.#opts.reconnectAttempts ?? 5;
    let last: unknown;
    for (let i = 0; i < attempts; i++) {
      this.#opts.onStatus?.({
        state: "reconnecting",
        message: `reconnecting to ${this.label} (attempt ${i + 1} of ${attempts})`,
      });
      try {
        const live = await this.#connect();
        this.#opts.onStatus?.({ state: "reconnected", message: `reconnected to ${this.label}` });
        return live;
      } catch (error) {
        last = error;
        // A refused key or login will not get better by retrying.
        if (error instanceof RemoteError && error.code !== "remote_unreachable") throw error;
        await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** i, 4000)));
      }
    }
    this.#opts.onStatus?.({ state: "lost", message: `lost the connection to ${this.label}` });
    throw new RemoteError(
      "remote_connection_lost",
      `the connection to ${this.label} dropped and ${attempts} attempts to reconnect failed: ${
        (last as Error)?.message ?? last
      }`,
      { cause: last },
    );
  }

  async #connect(): Promise<Live> {
    const t = this.#opts.target;
    const jumpClients: Client[] = [];
    let sock: unknown;
    try {
      for (const hop of t.jumps) {
        const client = await this.#connectHop(hop, sock);
        jumpClients.push(client);
        const next = t.jumps[t.jumps.indexOf(hop) + 1] ?? t;
        sock = await new Promise((resolve, reject) => {
          client.forwardOut("127.0.0.1", 0, next.hostName, next.port, (e, stream) => {
            if (e) reject(this.#unreachable(next, e));
            else resolve(stream);
          });
        });
      }
      const client = await this.#connectHop(t, sock);
      let markClosed!: () => void;
      const closed = new Promise<void>((r) => markClosed = r);
      const live: Live = { client, closed, jumpClients };
      const drop = () => {
        if (this.#live === live) this.#live = undefined;
        markClosed();
      };
      client.on("close", drop);
      client.on("end", drop);
      client.on("error", drop);
      this.#generation++;
      this.#live = live;
      return live;
    } catch (error) {
      for (const j of jumpClients) j.end();
      throw error;
    }
  }

  #unreachable(hop: Pick<ResolvedHop, "hostName" | "port">, cause: unknown): RemoteError {
    return new RemoteError(
      "remote_unreachable",
      `cannot reach ${hop.hostName}:${hop.port}: ${(cause as Error)?.message ?? cause}`,
      { cause },
    );
  }

  async #connectHop(hop: ResolvedHop, sock: unknown): Promise<Client> {
    const ssh2 = await loadSsh2();
    const opts = this.#opts;
    const knownFiles = opts.knownHostsFiles ?? [join(opts.home, ".ssh", "known_hosts")];
    const lines = await readKnownHosts(knownFiles);
    const name = knownHostsName(hop.hostName, hop.port);
    const preferred = knownTypes(lines, name);
    let refusal: RemoteError | undefined;
    const identities: { key: string; passphrase?: string }[] = [];
    for (const file of hop.identityFiles) {
      let read = this.#identities.get(file);
      if (!read) {
        read = readIdentity(file, opts);
        this.#identities.set(file, read);
        read.catch(() => this.#identities.delete(file));
      }
      const identity = await read;
      if (identity) identities.push(identity);
    }
    const client = new ssh2.Client();
    const config: ConnectConfig = {
      host: hop.hostName,
      port: hop.port,
      username: hop.user,
      readyTimeout: opts.readyTimeoutMs ?? 15_000,
      keepaliveInterval: 5_000,
      keepaliveCountMax: 3,
      ...(sock ? { sock: sock as ConnectConfig["sock"] } : {}),
      ...(opts.agentSocket ? { agent: opts.agentSocket } : {}),
      ...(preferred.length
        ? {
          algorithms: {
            // Known types first, so the server presents the key known_hosts holds.
            serverHostKey: { prepend: preferred } as never,
          },
        }
        : {}),
      hostVerifier: (key: Uint8Array, verify: (ok: boolean) => void) => {
        const verdict = verifyHostKey(lines, name, key);
        if (verdict.kind === "known") return verify(true);
        if (verdict.kind === "changed" || verdict.kind === "revoked") {
          refusal = new RemoteError(
            "remote_host_key_changed",
            `the host key of ${name} ${
              verdict.kind === "revoked" ? "is revoked" : "has CHANGED"
            } (now ${fingerprint(key)}); ` +
              `${verdict.file}:${verdict.line} holds the key this host had. Someone may be ` +
              "intercepting the connection, or the host was reinstalled. Reasonix refuses to " +
              `connect; if the change is expected, remove that line (ssh-keygen -R '${name}').`,
          );
          return verify(false);
        }
        const ask: UnknownHostKey = {
          host: name,
          keyType: keyTypeOf(key),
          fingerprint: fingerprint(key),
          knownTypes: verdict.knownTypes,
        };
        const confirm = opts.confirmHostKey ?? (() => Promise.resolve(false));
        confirm(ask).then(async (ok) => {
          if (ok) {
            await addKnownHost(knownFiles[0], name, key);
            return verify(true);
          }
          refusal = new RemoteError(
            "remote_host_key_unknown",
            `the host key of ${name} (${ask.keyType} ${ask.fingerprint}) is not in ` +
              `${knownFiles.join(", ")}, and it was not accepted. Check the fingerprint with the ` +
              "host's administrator, then connect once interactively, pass " +
              "--accept-new-host-key, or add it with ssh-keyscan.",
          );
          verify(false);
        }, () => verify(false));
      },
      authHandler: (() => {
        const methods: unknown[] = [];
        if (opts.agentSocket) methods.push("agent");
        for (const id of identities) {
          methods.push({
            type: "publickey",
            username: hop.user,
            key: id.key,
            ...(id.passphrase ? { passphrase: id.passphrase } : {}),
          });
        }
        return methods as never;
      })(),
    };
    return await new Promise<Client>((resolve, reject) => {
      const onAbort = () => {
        client.end();
        reject(opts.signal?.reason);
      };
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      const settle = () => opts.signal?.removeEventListener("abort", onAbort);
      client.once("ready", () => {
        settle();
        // Every SFTP request is a small packet waiting for its answer: Nagle's algorithm with
        // delayed ACKs would add ~40 ms to each.
        client.setNoDelay(true);
        resolve(client);
      });
      client.once("error", (error: Error & { level?: string }) => {
        settle();
        if (refusal) return reject(refusal);
        if (error.level === "client-authentication") {
          return reject(
            new RemoteError(
              "remote_auth_failed",
              `${hop.user}@${hop.hostName}:${hop.port} refused every key offered (` +
                `${opts.agentSocket ? "the SSH agent, " : ""}${
                  identities.length
                    ? `${identities.length} identity file(s)`
                    : "no identity file found"
                }); tried ${hop.identityFiles.join(", ")}. Add your public key to the remote ` +
                "~/.ssh/authorized_keys, load it into ssh-agent, or set IdentityFile in ~/.ssh/config.",
              { cause: error },
            ),
          );
        }
        reject(this.#unreachable(hop, error));
      });
      client.connect(config);
    });
  }
}

function keyTypeOf(blob: Uint8Array): string {
  const n = new DataView(blob.buffer, blob.byteOffset, blob.byteLength).getUint32(0);
  return new TextDecoder().decode(blob.subarray(4, 4 + n));
}
