/**
 * A scriptable fake LLM server speaking a real wire format byte for byte, for tests and
 * benchmarks. No model is reachable from the test machine; this is the sanctioned stand-in.
 *
 * @module
 */
import {
  concat,
  encodeChunk,
  encodeHead,
  LAST_CHUNK,
  type RawResponse,
  serveRaw,
} from "./http1.ts";
import { anthropicFormat } from "./anthropic_format.ts";
import { openAiFormat, type WireFormat } from "./openai_format.ts";
import { responsesFormat } from "./responses_format.ts";
import type {
  CompletionStep,
  ErrorStep,
  FakeFormat,
  FakeLlm,
  FakeLlmOptions,
  FakeStep,
  HangStep,
  RecordedRequest,
  ResetStep,
} from "./types.ts";

const FORMATS: Record<FakeFormat, WireFormat> = {
  openai: openAiFormat,
  anthropic: anthropicFormat,
  responses: responsesFormat,
};
const encoder = new TextEncoder();
// Default HTTP chunk sizes: small, prime-ish and varying, so frames, lines and multi-byte
// characters are cut at every possible place.
const AWKWARD_SIZES = [7, 13, 3, 29, 5, 61, 11];

/**
 * Starts a fake server on 127.0.0.1 (port 0 unless given).
 *
 * @example A tool call, then an answer
 * ```ts
 * import { startFakeLlm } from "@reasonix/reasonix/testing";
 *
 * const fake = await startFakeLlm({
 *   script: [
 *     { toolCalls: [{ name: "read_file", arguments: JSON.stringify({ path: "README.md" }) }] },
 *     { text: "It is a README." },
 *   ],
 * });
 * // Point a provider's `base_url` at `fake.url`; `fake.requests` records what it was sent.
 * console.log(fake.url, fake.requests.length); // http://127.0.0.1:PORT/v1 0
 * await fake.close();
 * ```
 */
export function startFakeLlm(opts: FakeLlmOptions): Promise<FakeLlm> {
  const only = opts.format === undefined ? undefined : FORMATS[opts.format];
  if (opts.format !== undefined && !only) {
    return Promise.reject(new RangeError(`unknown fake LLM format: ${opts.format}`));
  }
  // Without a fixed format, the path picks one; unknown paths get OpenAI's 404 body.
  const formatFor = (method: string, path: string): WireFormat =>
    only ?? Object.values(FORMATS).find((f) => f.matches(method, path)) ?? openAiFormat;
  const keepAlive = opts.keepAlive ?? false;
  const connection = keepAlive ? "keep-alive" : "close";
  const requests: RecordedRequest[] = [];
  let previousBody: Uint8Array | undefined;
  let stepIndex = 0;
  let seq = 0;

  const server = serveRaw(async (raw, res) => {
    const sharedPrefixBytes = previousBody ? commonPrefix(previousBody, raw.body) : 0;
    previousBody = raw.body;
    const bodyText = new TextDecoder().decode(raw.body);
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = undefined;
    }
    const req: RecordedRequest = {
      method: raw.method,
      path: raw.path,
      headers: raw.headers,
      bodyText,
      body,
      sharedPrefixBytes,
      time: Date.now(),
    };
    requests.push(req);

    const format = formatFor(raw.method, raw.path);
    if (opts.apiKey !== undefined && presentedKey(raw.headers) !== opts.apiKey) {
      const anthropic = "anthropic-version" in raw.headers ? anthropicFormat : format;
      await sendBody(res, {
        status: 401,
        body: anthropic.errorBody(401, req),
        headers: { connection },
      });
      return;
    }
    if (opts.models && raw.method === "GET" && raw.path.split("?")[0].endsWith("/models")) {
      await sendBody(res, {
        status: 200,
        body: modelList(opts.models, "anthropic-version" in raw.headers),
        headers: { connection },
      });
      return;
    }
    if (!format.matches(raw.method, raw.path)) {
      await sendBody(res, {
        status: 404,
        body: format.notFoundBody(raw.method, raw.path),
        headers: { connection },
      });
      return;
    }
    const index = stepIndex++;
    let step: FakeStep | undefined;
    try {
      step = typeof opts.script === "function" ? opts.script(req, index) : opts.script[index];
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const body = format.fakeErrorBody(`fake LLM script threw: ${message}`);
      await sendBody(res, { status: 500, body, headers: { connection } });
      return;
    }
    if (step === undefined) {
      const of = typeof opts.script === "function" ? "" : ` (the script has ${opts.script.length})`;
      const message = `fake LLM script exhausted: no step for request #${index + 1}${of}`;
      await sendBody(res, {
        status: 500,
        body: format.fakeErrorBody(message),
        headers: { connection },
      });
      return;
    }
    await runStep(step, { req, res, format, seq: ++seq, connection });
  }, { hostname: opts.hostname, port: opts.port, keepAlive });

  return Promise.resolve({
    url: `http://${server.hostname}:${server.port}/v1`,
    requests,
    close: () => server.close(),
  });
}

/** One request being answered: what was asked, where to write, in which wire format. */
interface Exchange {
  req: RecordedRequest;
  res: RawResponse;
  format: WireFormat;
  connection: string;
}

async function runStep(step: FakeStep, ex: Exchange & { seq: number }): Promise<void> {
  const { req, res, format, seq, connection } = ex;
  if ("status" in step) {
    await sendError(step, ex);
    return;
  }
  if ("reset" in step && step.reset === "before-headers") {
    res.destroy();
    return;
  }
  if ("hang" in step && step.hang === "before-headers") {
    await res.silence();
    res.destroy();
    return;
  }
  const completion = step as CompletionStep & { afterBytes?: number };
  const frames = format.frames(completion, req, seq).map((f) => encoder.encode(f));
  const total = frames.reduce((n, f) => n + f.byteLength, 0);
  const cut = step as ResetStep | HangStep as { reset?: string; hang?: string };
  const interrupted = cut.reset === "mid-stream" || cut.hang === "mid-stream";
  const limit = interrupted
    ? Math.min(total, completion.afterBytes ?? Math.floor(total / 2))
    : Infinity;

  await res.write(encodeHead(200, {
    "date": new Date(req.time).toUTCString(),
    "content-type": "text/event-stream; charset=utf-8",
    "transfer-encoding": "chunked",
    "connection": connection,
    "cache-control": "no-cache",
    "x-request-id": `req_fake${String(seq).padStart(6, "0")}`,
  }));
  const sizes = completion.chunkBytes !== undefined && completion.chunkBytes > 0
    ? [Math.floor(completion.chunkBytes)]
    : AWKWARD_SIZES;
  let sent = 0;
  let k = 0;
  for (const frame of frames) {
    if (res.closing) return;
    const room = Math.min(frame.byteLength, limit - sent);
    const pieces: Uint8Array[] = [];
    for (let offset = 0; offset < room;) {
      const size = Math.min(sizes[k++ % sizes.length], room - offset);
      pieces.push(encodeChunk(frame.subarray(offset, offset + size)));
      offset += size;
    }
    // One socket write per frame: the pieces still arrive as separate HTTP chunks.
    if (pieces.length > 0) await res.write(concat(pieces));
    sent += room;
    if (sent >= limit) break;
    if (completion.delayMs) await res.pause(completion.delayMs);
  }
  if (cut.hang === "mid-stream") {
    await res.silence();
    res.destroy();
    return;
  }
  if (cut.reset === "mid-stream") {
    res.destroy();
    return;
  }
  await res.write(LAST_CHUNK);
}

async function sendError(step: ErrorStep, ex: Exchange): Promise<void> {
  const { req, res, format, connection } = ex;
  const body = step.body === undefined
    ? format.errorBody(step.status, req)
    : typeof step.body === "string"
    ? step.body
    : JSON.stringify(step.body);
  await sendBody(res, {
    status: step.status,
    body,
    headers: {
      connection,
      ...format.errorHeaders(step.status),
      ...lowercaseKeys(step.headers ?? {}),
    },
  });
}

async function sendBody(
  res: RawResponse,
  reply: { status: number; body: string; headers: Record<string, string> },
): Promise<void> {
  const { status, body, headers } = reply;
  const bytes = encoder.encode(body);
  let isJson = true;
  try {
    JSON.parse(body);
  } catch {
    isJson = false;
  }
  await res.write(concat([
    encodeHead(status, {
      "date": new Date().toUTCString(),
      "content-type": isJson ? "application/json" : "text/plain; charset=utf-8",
      "content-length": String(bytes.byteLength),
      ...headers,
    }),
    bytes,
  ]));
}

function lowercaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The key a request presents: `Authorization: Bearer …` or `x-api-key`. */
function presentedKey(headers: Record<string, string>): string | undefined {
  const bearer = /^Bearer\s+(.*)$/i.exec(headers["authorization"] ?? "")?.[1];
  return bearer ?? headers["x-api-key"];
}

/** A `GET /models` body in the OpenAI or the Anthropic shape. */
function modelList(
  models: readonly (string | { id: string; context_length?: number })[],
  anthropic: boolean,
): string {
  const entries = models.map((m) => typeof m === "string" ? { id: m } : m);
  if (anthropic) {
    const data = entries.map((m) => ({
      type: "model",
      id: m.id,
      display_name: m.id,
      created_at: "2026-01-01T00:00:00Z",
    }));
    return JSON.stringify({
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    });
  }
  return JSON.stringify({
    object: "list",
    data: entries.map((m) => ({ object: "model", created: 0, owned_by: "fake", ...m })),
  });
}

/** Length of the common byte prefix of two buffers. */
export function commonPrefix(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.byteLength, b.byteLength);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
