/**
 * Server-sent events over a fetch body, with an idle timeout and abort support. Wire-neutral:
 * every streaming provider kind reads its response through {@link readSse}.
 *
 * @module
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ProviderError } from "./errors.ts";

/** One dispatched server-sent event. */
export interface SseEvent {
  /** The `event:` field, when the server set one. */
  event?: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The `id:` field, when the server set one. */
  id?: string;
}

/** Options for {@link readSse}. */
export interface SseOptions {
  /** Cancel the body and throw `provider_idle_timeout` when no bytes arrive for this long. */
  idleTimeoutMs?: number;
  /** Aborting cancels the body and throws the signal's reason. */
  signal?: AbortSignal;
  /** Provider name used in error messages. */
  provider?: string;
  /**
   * Cap on buffered characters of one unfinished line or event. A server that never ends an
   * event must not grow memory without bound.
   */
  maxBufferSize?: number;
}

const DEFAULT_MAX_BUFFER = 16 * 1024 * 1024;

/**
 * Parses a response body as an event stream. Comments (`: keep-alive`) are skipped but still
 * reset the idle timer, because they prove the connection is alive. An event left unfinished
 * when the body ends is discarded, as the SSE specification requires.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  opts: SseOptions = {},
): AsyncGenerator<SseEvent> {
  const label = opts.provider ? `${opts.provider}: ` : "";
  const queue: SseEvent[] = [];
  let parseFailure: ProviderError | undefined;
  const parser = createParser({
    maxBufferSize: opts.maxBufferSize ?? DEFAULT_MAX_BUFFER,
    onEvent(message: EventSourceMessage) {
      const event: SseEvent = { data: message.data };
      if (message.event !== undefined) event.event = message.event;
      if (message.id !== undefined) event.id = message.id;
      queue.push(event);
    },
    onError(error) {
      if (error.type === "max-buffer-size-exceeded") {
        parseFailure = new ProviderError("provider_stream", `${label}${error.message}`, {
          cause: error,
        });
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  try {
    while (true) {
      const result = await readWithDeadline(reader, opts, label);
      if (result.done) {
        finished = true;
        // Flushes a multi-byte character split at the very end; an unterminated event stays
        // undispatched, as the spec requires.
        parser.feed(decoder.decode());
        yield* drain(queue);
        return;
      }
      // `stream: true` keeps a UTF-8 sequence split across reads intact until it completes.
      parser.feed(decoder.decode(result.value, { stream: true }));
      if (parseFailure) throw parseFailure;
      yield* drain(queue);
    }
  } finally {
    if (!finished) {
      // Consumer stopped early, timed out, or aborted: release the connection.
      await reader.cancel(opts.signal?.reason).catch(() => {});
    }
    reader.releaseLock();
  }
}

function* drain(queue: SseEvent[]): Generator<SseEvent> {
  while (queue.length > 0) yield queue.shift()!;
}

function readWithDeadline(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  opts: SseOptions,
  label: string,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  const { signal, idleTimeoutMs } = opts;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      cleanup();
      reject(signal!.reason);
    };
    const cleanup = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    if (idleTimeoutMs !== undefined && idleTimeoutMs > 0 && Number.isFinite(idleTimeoutMs)) {
      timer = setTimeout(() => {
        cleanup();
        reject(
          new ProviderError(
            "provider_idle_timeout",
            `${label}no data received for ${idleTimeoutMs} ms; the stream was abandoned`,
            { retryable: true },
          ),
        );
      }, idleTimeoutMs);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    reader.read().then(
      (result) => {
        cleanup();
        resolve(result);
      },
      (error: unknown) => {
        cleanup();
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        reject(
          new ProviderError(
            "provider_network",
            `${label}connection lost while streaming: ${describe(error)}`,
            { cause: error, retryable: true },
          ),
        );
      },
    );
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Parses the JSON `data` of one event. Malformed JSON is a `provider_stream` error naming the
 * provider; a non-object value (e.g. a bare number) is `undefined`, for the caller to skip.
 */
export function parseEventJson(
  data: string,
  provider: string,
): Record<string, unknown> | undefined {
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch (error) {
    throw new ProviderError(
      "provider_stream",
      `${provider}: malformed stream event: ${data.slice(0, 200)}`,
      { cause: error },
    );
  }
  return typeof payload === "object" && payload !== null
    ? payload as Record<string, unknown>
    : undefined;
}
