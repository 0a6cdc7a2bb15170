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
  const reads = new GuardedReader(reader, opts, label);
  let finished = false;
  try {
    while (true) {
      const result = await reads.read();
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
    reads.close();
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

/**
 * Reads a body with the idle timeout and the abort signal, for one stream. The clock runs only
 * while a read waits, as if each read had its own timer; but one timer serves the whole
 * stream and is set again only when it fires early, and one abort listener serves every read.
 * A timer and a listener per read (hundreds per answer) left garbage behind in the old
 * generation on every turn, there until the next full collection.
 */
class GuardedReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #opts: SseOptions;
  readonly #label: string;
  readonly #idleMs: number | undefined;
  #failure: unknown;
  #pending: ((error: unknown) => void) | undefined;
  /** When the waiting read started (`performance.now()`). */
  #waitingSince = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, opts: SseOptions, label: string) {
    this.#reader = reader;
    this.#opts = opts;
    this.#label = label;
    const ms = opts.idleTimeoutMs;
    this.#idleMs = ms !== undefined && ms > 0 && Number.isFinite(ms) ? ms : undefined;
    opts.signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    const signal = this.#opts.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#pending = reject;
      this.#waitingSince = performance.now();
      if (this.#idleMs !== undefined && this.#timer === undefined) this.#arm(this.#idleMs);
      this.#reader.read().then(
        (result) => {
          if (this.#pending !== reject) return;
          this.#pending = undefined;
          resolve(result);
        },
        (error: unknown) => {
          if (this.#pending !== reject) return;
          this.#pending = undefined;
          if (signal?.aborted) {
            reject(signal.reason);
            return;
          }
          reject(
            new ProviderError(
              "provider_network",
              `${this.#label}connection lost while streaming: ${describe(error)}`,
              { cause: error, retryable: true },
            ),
          );
        },
      );
    });
  }

  /** Stops the timer and the abort listener; the stream is done with. */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#opts.signal?.removeEventListener("abort", this.#onAbort);
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(this.#check, ms);
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    const idleMs = this.#idleMs!;
    if (this.#pending === undefined) return; // armed again by the next read
    const waited = performance.now() - this.#waitingSince;
    if (waited < idleMs) {
      this.#arm(idleMs - waited);
      return;
    }
    this.#fail(
      new ProviderError(
        "provider_idle_timeout",
        `${this.#label}no data received for ${idleMs} ms; the stream was abandoned`,
        { retryable: true },
      ),
    );
  };

  readonly #onAbort = (): void => this.#fail(this.#opts.signal!.reason);

  #fail(error: unknown): void {
    this.#failure ??= error;
    const reject = this.#pending;
    this.#pending = undefined;
    reject?.(error);
  }
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
