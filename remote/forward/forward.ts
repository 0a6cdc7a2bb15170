/**
 * Port forwards over a remote workspace's SSH connection: local → remote (a port here that
 * reaches a port on the remote host, e.g. an MCP server or a dev server running there) and
 * remote → local (a port on the remote host that reaches one here). Forwards survive a
 * reconnect: each new TCP connection asks the connection for its current client.
 *
 * @module
 */
import type { Duplex } from "node:stream";
import type { SshConnection } from "../connection.ts";

/** An open forward. */
export interface Forward extends AsyncDisposable {
  /** The port it listens on (local for local → remote, remote for remote → local). */
  port: number;
  /** Stops listening and closes the connections it carries. */
  close(): Promise<void>;
}

/** Options of {@linkcode forwardLocal}. */
export interface LocalForwardOptions {
  /** Host as the remote side resolves it; default `127.0.0.1`. */
  remoteHost?: string;
  remotePort: number;
  /** Local port; default a free one. Always bound to 127.0.0.1. */
  localPort?: number;
}

async function pipeBoth(conn: Deno.Conn, stream: Duplex): Promise<void> {
  const done = new Promise<void>((resolve) => {
    stream.on("close", resolve);
    stream.on("error", () => resolve());
  });
  stream.on("data", (chunk: Uint8Array) => {
    stream.pause();
    conn.write(chunk).then(() => stream.resume(), () => stream.destroy());
  });
  stream.on("end", () => conn.closeWrite().catch(() => {}));
  (async () => {
    const buffer = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await conn.read(buffer);
        if (n === null) break;
        if (!stream.write(buffer.slice(0, n))) {
          await new Promise((r) => stream.once("drain", r));
        }
      }
    } catch {
      // The local side went away.
    }
    stream.end();
  })();
  await done;
  try {
    conn.close();
  } catch { /* closed */ }
}

/**
 * Listens on 127.0.0.1 and carries each connection to `remoteHost:remotePort` as the remote
 * host sees it (OpenSSH `-L`).
 */
export function forwardLocal(connection: SshConnection, opts: LocalForwardOptions): Forward {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: opts.localPort ?? 0 });
  const open = new Set<Deno.Conn>();
  const remoteHost = opts.remoteHost ?? "127.0.0.1";
  (async () => {
    for await (const conn of listener) {
      open.add(conn);
      (async () => {
        try {
          const client = await connection.client();
          const stream = await new Promise<Duplex>((resolve, reject) => {
            client.forwardOut("127.0.0.1", 0, remoteHost, opts.remotePort, (error, channel) => {
              if (error) reject(error);
              else resolve(channel as unknown as Duplex);
            });
          });
          await pipeBoth(conn, stream);
        } catch {
          try {
            conn.close();
          } catch { /* closed */ }
        } finally {
          open.delete(conn);
        }
      })();
    }
  })().catch(() => {});
  const close = () => {
    try {
      listener.close();
    } catch { /* closed */ }
    for (const conn of open) {
      try {
        conn.close();
      } catch { /* closed */ }
    }
    return Promise.resolve();
  };
  return {
    port: (listener.addr as Deno.NetAddr).port,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Options of {@linkcode forwardRemote}. */
export interface RemoteForwardOptions {
  /** Port on the remote host; 0 lets the server pick. Bound to the remote 127.0.0.1. */
  remotePort: number;
  /** Where each connection goes here; default `127.0.0.1`. */
  localHost?: string;
  localPort: number;
}

/**
 * Asks the server to listen on its 127.0.0.1:`remotePort` and carries each connection to
 * `localHost:localPort` here (OpenSSH `-R`). Needs `AllowTcpForwarding` on the server.
 */
export async function forwardRemote(
  connection: SshConnection,
  opts: RemoteForwardOptions,
): Promise<Forward> {
  const client = await connection.client();
  const port = await new Promise<number>((resolve, reject) => {
    client.forwardIn("127.0.0.1", opts.remotePort, (error, bound) => {
      if (error) reject(error);
      else resolve(bound || opts.remotePort);
    });
  });
  const onConnection = (
    info: { destPort: number },
    accept: () => Duplex,
    reject: () => void,
  ) => {
    if (info.destPort !== port) return;
    Deno.connect({ hostname: opts.localHost ?? "127.0.0.1", port: opts.localPort }).then(
      (conn) => pipeBoth(conn, accept()),
      () => reject(),
    );
  };
  client.on("tcp connection", onConnection as never);
  const close = async () => {
    client.off("tcp connection", onConnection as never);
    await new Promise<void>((resolve) => {
      try {
        client.unforwardIn("127.0.0.1", port, () => resolve());
      } catch {
        resolve();
      }
    });
  };
  return { port, close, [Symbol.asyncDispose]: close };
}
