/**
 * A minimal HTTP/1.1 server over `Deno.listen`. The fake needs control `Deno.serve` does not
 * give: dropping a connection before the status line, cutting a chunked body mid-chunk, and
 * going silent, so that a real `fetch` client sees real failures.
 *
 * @module
 */

/** A parsed request. */
export interface RawRequest {
  method: string;
  path: string;
  /** Names lowercased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Uint8Array;
}

/** The response side of one exchange: raw bytes, nothing interpreted. */
export interface RawResponse {
  /** Writes bytes to the socket. Rejects when the peer is gone or the server closed. */
  write(bytes: Uint8Array): Promise<void>;
  /** Closes the TCP connection at once, mid-message if need be. */
  destroy(): void;
  /** Sleeps, ending early (without error) when the server closes. */
  pause(ms: number): Promise<void>;
  /** Resolves when the client closes the connection or the server is closing. */
  silence(): Promise<void>;
  /** Whether the server is closing. */
  readonly closing: boolean;
}

/** Handles one exchange. Returning without `destroy()` keeps the connection for the next request. */
export type RawHandler = (req: RawRequest, res: RawResponse) => Promise<void>;

/** A listening raw server. */
export interface RawServer {
  hostname: string;
  port: number;
  close(): Promise<void>;
}

const REASONS: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  529: "Site Overloaded",
};

const encoder = new TextEncoder();
const MAX_HEAD_BYTES = 64 * 1024;

/** Status line and headers, ending with the blank line. */
export function encodeHead(status: number, headers: Record<string, string>): Uint8Array {
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? "Unknown"}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return encoder.encode(`${head}\r\n`);
}

/** One chunk of a chunked body. */
export function encodeChunk(bytes: Uint8Array): Uint8Array {
  const size = encoder.encode(`${bytes.byteLength.toString(16)}\r\n`);
  return concat([size, bytes, encoder.encode("\r\n")]);
}

/** The terminating zero-length chunk. */
export const LAST_CHUNK: Uint8Array = encoder.encode("0\r\n\r\n");

/** Concatenates byte arrays. */
export function concat(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** Starts listening; each connection serves requests until either side closes it. */
export function serveRaw(
  handler: RawHandler,
  opts: { hostname?: string; port?: number; keepAlive?: boolean } = {},
): RawServer {
  const listener = Deno.listen({ hostname: opts.hostname ?? "127.0.0.1", port: opts.port ?? 0 });
  const conns = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  let closing = false;
  let signalClosing!: () => void;
  const closed = new Promise<void>((resolve) => (signalClosing = resolve));

  const acceptLoop = (async () => {
    try {
      for await (const conn of listener) {
        if (closing) {
          conn.close();
          continue;
        }
        conns.add(conn);
        const task = serveConnection(conn, handler, {
          closed,
          isClosing: () => closing,
          keepAlive: opts.keepAlive ?? true,
        })
          .finally(() => {
            conns.delete(conn);
            tasks.delete(task);
            try {
              conn.close();
            } catch {
              // Already closed by destroy() or close().
            }
          });
        tasks.add(task);
      }
    } catch (error) {
      if (!closing) throw error;
    }
  })();

  const addr = listener.addr as Deno.NetAddr;
  return {
    hostname: addr.hostname,
    port: addr.port,
    async close(): Promise<void> {
      if (closing) return;
      closing = true;
      signalClosing();
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed.
        }
      }
      await acceptLoop;
      await Promise.allSettled([...tasks]);
    },
  };
}

interface ServerState {
  closed: Promise<void>;
  isClosing: () => boolean;
  keepAlive: boolean;
}

async function serveConnection(
  conn: Deno.Conn,
  handler: RawHandler,
  server: ServerState,
): Promise<void> {
  const reader = new ConnReader(conn);
  let destroyed = false;
  const destroy = (): void => {
    if (destroyed) return;
    destroyed = true;
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  };
  try {
    while (!destroyed && !server.isClosing()) {
      const req = await readRequest(reader);
      if (!req) return;
      const res: RawResponse = {
        async write(bytes) {
          if (destroyed) throw new Error("connection destroyed");
          let offset = 0;
          while (offset < bytes.byteLength) offset += await conn.write(bytes.subarray(offset));
        },
        destroy,
        pause(ms) {
          return new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            server.closed.then(() => {
              clearTimeout(timer);
              resolve();
            });
          });
        },
        async silence() {
          await Promise.race([server.closed, reader.waitForEof()]);
        },
        get closing() {
          return server.isClosing();
        },
      };
      await handler(req, res);
      if (!server.keepAlive || /\bclose\b/i.test(req.headers["connection"] ?? "")) return;
    }
  } catch {
    // The peer vanished or the server closed mid-exchange: nothing left to answer.
  } finally {
    destroy();
  }
}

class ConnReader {
  #conn: Deno.Conn;
  #buffer: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  #eof = false;

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** Bytes buffered so far. */
  get buffered(): Uint8Array {
    return this.#buffer;
  }

  /** Reads more bytes; false at end of stream. */
  async fill(): Promise<boolean> {
    if (this.#eof) return false;
    const chunk = new Uint8Array(16 * 1024);
    const n = await this.#conn.read(chunk);
    if (n === null) {
      this.#eof = true;
      return false;
    }
    this.#buffer = concat([this.#buffer, chunk.subarray(0, n)]);
    return true;
  }

  take(n: number): Uint8Array<ArrayBuffer> {
    const out = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.slice(n);
    return out;
  }

  /** Resolves once the peer closes (or the socket fails), buffering anything it sends. */
  async waitForEof(): Promise<void> {
    try {
      while (await this.fill()) {
        // Keep draining: a well-behaved client sends nothing while it waits.
      }
    } catch {
      // Closed under us: that is an end too.
    }
  }
}

async function readRequest(reader: ConnReader): Promise<RawRequest | undefined> {
  let headEnd = indexOfCrlfCrlf(reader.buffered);
  while (headEnd < 0) {
    if (reader.buffered.byteLength > MAX_HEAD_BYTES) throw new Error("request head too large");
    if (!(await reader.fill())) {
      if (reader.buffered.byteLength === 0) return undefined;
      throw new Error("connection closed inside a request head");
    }
    headEnd = indexOfCrlfCrlf(reader.buffered);
  }
  const head = new TextDecoder().decode(reader.take(headEnd + 4)).slice(0, -4);
  const [requestLine, ...lines] = head.split("\r\n");
  const [method, path] = requestLine.split(" ");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  let body: Uint8Array;
  if (/\bchunked\b/i.test(headers["transfer-encoding"] ?? "")) {
    body = await readChunkedBody(reader);
  } else {
    const length = Number(headers["content-length"] ?? "0");
    await readAtLeast(reader, length);
    body = reader.take(length);
  }
  return { method, path, headers, body };
}

async function readChunkedBody(reader: ConnReader): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  while (true) {
    const lineEnd = await readUntilCrlf(reader);
    const sizeLine = new TextDecoder().decode(reader.take(lineEnd + 2)).trim();
    const size = parseInt(sizeLine.split(";")[0], 16);
    if (Number.isNaN(size)) throw new Error(`bad chunk size line: ${sizeLine}`);
    if (size === 0) {
      // Trailers (rare) end with an empty line.
      while (true) {
        const end = await readUntilCrlf(reader);
        reader.take(end + 2);
        if (end === 0) return concat(parts);
      }
    }
    await readAtLeast(reader, size + 2);
    parts.push(reader.take(size));
    reader.take(2);
  }
}

async function readAtLeast(reader: ConnReader, n: number): Promise<void> {
  while (reader.buffered.byteLength < n) {
    if (!(await reader.fill())) throw new Error("connection closed inside a request body");
  }
}

async function readUntilCrlf(reader: ConnReader): Promise<number> {
  while (true) {
    const buf = reader.buffered;
    for (let i = 0; i + 1 < buf.byteLength; i++) {
      if (buf[i] === 13 && buf[i + 1] === 10) return i;
    }
    if (!(await reader.fill())) throw new Error("connection closed inside a chunked body");
  }
}

function indexOfCrlfCrlf(buf: Uint8Array): number {
  for (let i = 0; i + 3 < buf.byteLength; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}
