/**
 * Recording of provider traffic (`reasonix run --record <file>`): a `fetch` wrapper that writes
 * every exchange to a JSONL file as it happens, so a run can be replayed without a network by
 * the `replay` kind and attached to bug reports. Credentials are redacted before writing.
 *
 * The file is one JSON object per line:
 * - `{"type":"header","format":"reasonix-provider-recording","version":1,"provider":{…}}` first;
 * - per exchange `n`: `request` (method, url, headers, body), then `response` (status, headers)
 *   or `error` (the fetch failed), then `chunk`s of the body (`text`, or `base64` when a chunk
 *   is not valid UTF-8 on its own) with `ms` since the request, then `end`, `error` (the body
 *   broke off) or `cancel` (the reader stopped early).
 *
 * Each line is written synchronously, and the file is synced at the end of every exchange, so
 * a crash loses at most the exchange in flight.
 *
 * @module
 */
import { type Redactor, secretRedactor } from "./redact.ts";
import { bodyText } from "./http.ts";

/** The `format` value of a recording's header line. */
export const RECORDING_FORMAT = "reasonix-provider-recording";
/** The recording format version this code writes and reads. */
export const RECORDING_VERSION = 1;

/** What the header says about the recorded provider. */
export interface RecordedProvider {
  name: string;
  kind: string;
  model: string;
  /** Kind-specific options (no secrets live there). */
  options?: Record<string, unknown>;
}

/** One line of a recording. */
export type RecordLine =
  | {
    type: "header";
    format: typeof RECORDING_FORMAT;
    version: number;
    provider: RecordedProvider;
    created: string;
  }
  | {
    type: "request";
    n: number;
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string | null;
  }
  | {
    type: "response";
    n: number;
    status: number;
    statusText: string;
    headers: Record<string, string>;
  }
  | { type: "chunk"; n: number; ms: number; text?: string; base64?: string }
  | { type: "end"; n: number; ms: number }
  | { type: "cancel"; n: number; ms: number }
  | { type: "error"; n: number; ms: number; message: string };

/** Options for {@link openRecording}. */
export interface RecordingOptions {
  provider: RecordedProvider;
  /** Values scrubbed from everything written (the API key). */
  secrets?: readonly string[];
  /** The fetch to wrap; defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

/** An open recording. */
export interface Recording {
  /** The recording `fetch`; pass it as `ProviderSettings.fetch`. */
  fetch: typeof fetch;
  /** The file written. */
  path: string;
  /** Closes the file. Exchanges still streaming stop being recorded. */
  close(): void;
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

/** Every string in `value`, redacted. */
function scrub<T>(value: T, redactor: Redactor): T {
  if (typeof value === "string") return redactor.redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => scrub(v, redactor)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, scrub(v, redactor)]),
    ) as T;
  }
  return value;
}

/** A byte string as one character per byte, so any bytes survive the text redaction. */
function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return out;
}

function unlatin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/**
 * Creates (or truncates) `path` readable by its owner only, writes the header and returns the
 * recording `fetch`.
 */
export function openRecording(path: string, opts: RecordingOptions): Recording {
  const file = Deno.openSync(path, { write: true, create: true, truncate: true, mode: 0o600 });
  // `mode` applies only to a new file; an earlier recording being replaced is narrowed too.
  if (Deno.build.os !== "windows") Deno.chmodSync(path, 0o600);
  let closed = false;
  const redactor = secretRedactor(opts.secrets ?? []);
  const write = (line: RecordLine): void => {
    if (closed) return;
    // Each value first (a JSON-escaped copy would escape the line's own escaping), then the
    // line as written.
    const bytes = encoder.encode(`${redactor.redact(JSON.stringify(scrub(line, redactor)))}\n`);
    for (let offset = 0; offset < bytes.byteLength;) {
      offset += file.writeSync(bytes.subarray(offset));
    }
  };
  const sync = (): void => {
    if (!closed) file.syncDataSync();
  };
  write({
    type: "header",
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    provider: opts.provider,
    created: new Date().toISOString(),
  });
  sync();
  const inner = opts.fetch ?? fetch;
  let count = 0;

  const recordingFetch: typeof fetch = async (input, init) => {
    const n = ++count;
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const request = new Request(input, init);
    write({
      type: "request",
      n,
      method: request.method,
      url: request.url,
      headers: redactHeaders(request.headers),
      body: bodyText(init?.body),
    });
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (error) {
      write({ type: "error", n, ms: ms(), message: describe(error) });
      sync();
      throw error;
    }
    write({
      type: "response",
      n,
      status: response.status,
      statusText: response.statusText,
      headers: redactHeaders(response.headers),
    });
    if (!response.body) {
      write({ type: "end", n, ms: ms() });
      sync();
      return response;
    }
    const reader = response.body.getReader();
    // A secret split across reads is redacted whole: the tail that may still become one is
    // written with the next read (the replayed bytes are the same, in other pieces).
    let held = "";
    const writeChunk = (piece: string) => {
      if (piece) write({ type: "chunk", n, ms: ms(), ...chunkPayload(unlatin1(piece)) });
    };
    const flush = () => {
      writeChunk(redactor.redact(held));
      held = "";
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch (error) {
          flush();
          write({ type: "error", n, ms: ms(), message: describe(error) });
          sync();
          controller.error(error);
          return;
        }
        if (result.done) {
          flush();
          write({ type: "end", n, ms: ms() });
          sync();
          controller.close();
          return;
        }
        const { text, rest } = redactor.redactPrefix(held + latin1(result.value));
        held = rest;
        writeChunk(text);
        controller.enqueue(result.value);
      },
      cancel(reason) {
        flush();
        write({ type: "cancel", n, ms: ms() });
        sync();
        return reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  return {
    fetch: recordingFetch,
    path,
    close() {
      if (closed) return;
      sync();
      closed = true;
      file.close();
    },
  };
}

function chunkPayload(bytes: Uint8Array): { text: string } | { base64: string } {
  try {
    return { text: strictDecoder.decode(bytes) };
  } catch {
    // A multi-byte character split across reads: keep the exact bytes.
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return { base64: btoa(binary) };
  }
}

// Narrower than `isSecretHeader` on purpose: rate-limit headers such as
// `x-ratelimit-remaining-tokens` are exactly what a bug report needs. Configured key values
// are scrubbed from every line anyway.
const CREDENTIAL_HEADER =
  /^(authorization|proxy-authorization|cookie|set-cookie)$|api[-_]?key|secret|password|(^|[-_])token$/i;

function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    out[name] = CREDENTIAL_HEADER.test(name) ? "[redacted]" : value;
  }
  return out;
}

function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.filter((p) => p !== "").join(": ") || "unknown error";
}
