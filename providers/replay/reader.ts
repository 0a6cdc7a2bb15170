/**
 * Reading a provider recording back into exchanges, and a `fetch` that answers from them in
 * order.
 *
 * @module
 */
import { ProviderError } from "../errors.ts";
import { bodyText } from "../http.ts";
import {
  type RecordedProvider,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordLine,
} from "../recording.ts";

/** One recorded request and what came back. */
export interface Exchange {
  n: number;
  method: string;
  url: string;
  body: string | null;
  /** Absent when the fetch itself failed (see `error`). */
  response?: {
    status: number;
    statusText: string;
    headers: Record<string, string>;
  };
  chunks: Uint8Array[];
  /** How the body ended: read to the end, failed, stopped by the reader, or never recorded. */
  ending: "end" | "error" | "cancel" | "missing";
  /** The failure message for a failed fetch or a body that broke off. */
  error?: string;
}

/** A parsed recording. */
export interface ParsedRecording {
  provider: RecordedProvider;
  exchanges: Exchange[];
}

/** A recording that cannot be read, or a replay that diverges from it. */
export class ReplayError extends ProviderError {
  constructor(message: string, options: ErrorOptions = {}) {
    super("provider_bad_request", message, options);
    this.name = "ReplayError";
  }
}

/** Parses recording text. Throws {@link ReplayError} naming the file and line. */
export function parseRecording(text: string, file: string): ParsedRecording {
  const lines = text.split("\n");
  let provider: RecordedProvider | undefined;
  const exchanges = new Map<number, Exchange>();
  lines.forEach((raw, i) => {
    if (raw.trim() === "") return;
    let line: RecordLine;
    try {
      line = JSON.parse(raw);
    } catch (error) {
      // A crash can leave the last line half-written; anything earlier is damage.
      if (i >= lines.length - 2) return;
      throw new ReplayError(`${file}:${i + 1}: not a JSON line`, { cause: error });
    }
    if (line.type === "header") {
      if (line.format !== RECORDING_FORMAT || line.version !== RECORDING_VERSION) {
        throw new ReplayError(
          `${file}: not a version ${RECORDING_VERSION} Reasonix provider recording`,
        );
      }
      provider = line.provider;
      return;
    }
    if (line.type === "request") {
      exchanges.set(line.n, {
        n: line.n,
        method: line.method,
        url: line.url,
        body: line.body,
        chunks: [],
        ending: "missing",
      });
      return;
    }
    const exchange = exchanges.get(line.n);
    if (!exchange) throw new ReplayError(`${file}:${i + 1}: ${line.type} before its request`);
    switch (line.type) {
      case "response":
        exchange.response = {
          status: line.status,
          statusText: line.statusText,
          headers: line.headers,
        };
        break;
      case "chunk":
        exchange.chunks.push(
          line.base64 !== undefined
            ? Uint8Array.from(atob(line.base64), (c) => c.charCodeAt(0))
            : new TextEncoder().encode(line.text ?? ""),
        );
        break;
      case "end":
      case "cancel":
        exchange.ending = line.type;
        break;
      case "error":
        exchange.ending = "error";
        exchange.error = line.message;
        break;
    }
  });
  if (!provider) throw new ReplayError(`${file}: no recording header`);
  return { provider, exchanges: [...exchanges.values()].sort((a, b) => a.n - b.n) };
}

/** Options for {@link replayFetch}. */
export interface ReplayFetchOptions {
  /** Also require each request body to equal the recorded one byte for byte. */
  strict?: boolean;
  /** Told about a divergence before the failing fetch rejects. */
  onMismatch?: (error: ReplayError) => void;
}

/**
 * A `fetch` answering each request with the next recorded exchange. The method, the URL path
 * and query, and the number of conversation items in the body must match the recording (the
 * whole body with `strict`); otherwise the replay has diverged and the fetch rejects.
 */
export function replayFetch(
  recording: ParsedRecording,
  opts: ReplayFetchOptions = {},
): typeof fetch {
  let next = 0;
  return (input, init) => {
    const signal = init?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const request = new Request(input, init);
    const body = bodyText(init?.body);
    const exchange = recording.exchanges[next];
    const problem = exchange === undefined
      ? `the run made request #${next + 1} but the recording holds only ` +
        `${recording.exchanges.length}`
      : mismatch(exchange, { request, body }, opts.strict ?? false);
    if (problem !== undefined) {
      const error = new ReplayError(`replay diverged from the recording: ${problem}`);
      opts.onMismatch?.(error);
      return Promise.reject(error);
    }
    next++;
    if (!exchange.response) {
      return Promise.reject(new TypeError(exchange.error ?? "the recording ends here"));
    }
    const chunks = exchange.chunks;
    let index = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (index < chunks.length) {
          controller.enqueue(chunks[index++]);
          return;
        }
        if (exchange.ending === "error") {
          controller.error(new TypeError(exchange.error ?? "connection lost"));
        } else {
          controller.close();
        }
      },
    });
    return Promise.resolve(
      new Response(stream, {
        status: exchange.response.status,
        statusText: exchange.response.statusText,
        headers: exchange.response.headers,
      }),
    );
  };
}

function mismatch(
  exchange: Exchange,
  { request, body }: { request: Request; body: string | null },
  strict: boolean,
): string | undefined {
  const where = `request #${exchange.n}`;
  if (request.method !== exchange.method) {
    return `${where} was ${exchange.method}, now ${request.method}`;
  }
  const recordedUrl = new URL(exchange.url);
  const url = new URL(request.url);
  if (url.pathname + url.search !== recordedUrl.pathname + recordedUrl.search) {
    return `${where} went to ${recordedUrl.pathname}${recordedUrl.search}, now ` +
      `${url.pathname}${url.search}`;
  }
  if (strict) {
    if (body !== exchange.body) return `${where} body differs (strict replay)`;
    return undefined;
  }
  const before = conversationLength(exchange.body);
  const now = conversationLength(body);
  if (before !== now) {
    return `${where} carried ${before ?? "no"} conversation items, now ${now ?? "none"}`;
  }
  return undefined;
}

/** The length of `messages` or `input` in a JSON body. */
function conversationLength(body: string | null): number | undefined {
  if (body === null) return undefined;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const items = parsed.messages ?? parsed.input;
    return Array.isArray(items) ? items.length : undefined;
  } catch {
    return undefined;
  }
}
