/**
 * What every HTTP + SSE provider kind shares: POST the body, decode the event stream, retry
 * transient failures before any output, learn a model's real output limit from a 400, and
 * deliver tool calls whole. A kind supplies only its URL, headers, body and decoder.
 *
 * @module
 */
import { ProviderError, type ProviderErrorCode } from "./errors.ts";
import {
  defaultErrorMessage,
  displayUrl,
  endpointSource,
  type ErrorContext,
  postForStream,
} from "./http.ts";
import { OutputLimitMemory, streamWithOutputLimit } from "./output_limit.ts";
import type { ProviderSettings, RetryPolicy } from "./registry.ts";
import { DEFAULT_RETRY_POLICY, retryingStream } from "./retry.ts";
import { secretsOf } from "./settings.ts";
import { readSse, type SseEvent } from "./sse.ts";
import type { BodyBuffer, BodyEncoding, EncodedBody } from "./body_buffer.ts";
import { finishToolCalls } from "./tool_call_finish.ts";
import type { Chunk, Provider, ProviderRequest } from "./types.ts";

/** The wire-specific parts of a kind. */
export interface SseWire {
  url: string;
  headers: Record<string, string>;
  /** Abandon a stream silent for this long unless the settings say otherwise. */
  idleTimeoutMs: number;
  /** Serializes a request; called once per request, before any retry. */
  buildBody(req: ProviderRequest): string;
  /**
   * The same body as pieces whose concatenation is {@link buildBody}'s string, the unchanged
   * ones the same string objects as in the previous request (see `body_buffer.ts`). Without
   * it the body is one piece.
   */
  pieces?(req: ProviderRequest): readonly string[];
  /** Turns the event stream into chunks, throwing typed errors for in-stream failures. */
  decode(events: AsyncIterable<SseEvent>, context: ErrorContext): AsyncIterable<Chunk>;
}

/** A provider streaming completions over HTTP + SSE. Kinds extend it with their wire. */
export class SseProvider implements Provider, BodyEncoding {
  readonly name: string;
  readonly #settings: ProviderSettings;
  readonly #wire: SseWire;
  readonly #context: ErrorContext;
  readonly #retry: RetryPolicy;
  readonly #idleTimeoutMs: number;
  /** Output limits learned from this endpoint's 400s, for the rest of the session. */
  protected readonly limits: OutputLimitMemory = new OutputLimitMemory();
  /** The latest body {@link body} built, for the `stream` of the same request. */
  #measured: { req: ProviderRequest; body: string } | undefined;
  /** Bodies {@link encode} wrote, for the `stream` of the same request object. */
  readonly #encoded = new WeakMap<
    ProviderRequest,
    { buffer: BodyBuffer; bytes: Uint8Array<ArrayBuffer>; generation: number }
  >();

  constructor(settings: ProviderSettings, wire: SseWire) {
    this.name = settings.name;
    this.#settings = settings;
    this.#wire = wire;
    // Every supported kind reports `{"error":{"message",…}}` (or Anthropic's typed variant),
    // the default extractor's shapes.
    this.#context = {
      provider: settings.name,
      extractMessage: defaultErrorMessage,
      secrets: secretsOf(settings),
      // Error messages name the full URL and the setting to check (`base_url` + the path).
      url: wire.url,
      endpoint: endpointSource(settings, wire.url),
    };
    this.#retry = settings.retry ?? DEFAULT_RETRY_POLICY;
    this.#idleTimeoutMs = settings.idleTimeoutMs ?? wire.idleTimeoutMs;
  }

  /** Streams one completion; see {@link Provider.stream}. */
  stream(req: ProviderRequest, opts: { signal: AbortSignal }): AsyncIterable<Chunk> {
    const chunks = streamWithOutputLimit(req, {
      memory: this.limits,
      run: (r) => {
        // The meter serialized this very request just before: send the bytes it measured.
        const encoded = this.#encoded.get(r);
        const measured = this.#measured?.req === r ? this.#measured.body : undefined;
        this.#measured = undefined;
        let body: string | undefined = encoded ? undefined : measured ?? this.#wire.buildBody(r);
        // The encoded bytes live in the session's buffer until its next request; a retry after
        // that (which a sequential session never makes) sends a fresh serialization instead.
        const bodyNow = (): string | Uint8Array<ArrayBuffer> =>
          encoded && encoded.buffer.generation === encoded.generation
            ? encoded.bytes
            : (body ??= this.#wire.buildBody(r));
        return retryingStream(() => this.#attempt(bodyNow(), opts.signal), {
          signal: opts.signal,
          policy: this.#retry,
        });
      },
      onLearn: this.#settings.onOutputLimit,
    });
    return finishToolCalls(chunks, { toolNames: req.tools.map((t) => t.name) });
  }

  /** The body {@link stream} sends first for `req`; see {@link Provider.body}. */
  body(req: ProviderRequest): string {
    const cap = this.limits.clamp(req.maxOutputTokens);
    if (cap !== req.maxOutputTokens) return this.#wire.buildBody({ ...req, maxOutputTokens: cap });
    const body = this.#wire.buildBody(req);
    // Requests are not changed once built; `stream` of the same object reuses these bytes.
    this.#measured = { req, body };
    return body;
  }

  /**
   * Encodes the body {@link stream} sends first for `req` into a session's `buffer` (learned
   * limits applied); see {@link BodyEncoding}.
   */
  encode(req: ProviderRequest, buffer: BodyBuffer): EncodedBody {
    const cap = this.limits.clamp(req.maxOutputTokens);
    const wireReq = cap === req.maxOutputTokens ? req : { ...req, maxOutputTokens: cap };
    const pieces = this.#wire.pieces?.(wireReq) ?? [this.#wire.buildBody(wireReq)];
    const encoded = buffer.encode(pieces);
    // A clamped request is rebuilt by `stream` with the same clamp; only the exact one reuses.
    if (wireReq === req) {
      this.#encoded.set(req, { buffer, bytes: encoded.bytes, generation: encoded.generation });
    }
    return encoded;
  }

  async *#attempt(
    body: string | Uint8Array<ArrayBuffer>,
    signal: AbortSignal,
  ): AsyncGenerator<Chunk> {
    const response = await postForStream({
      ...this.#context,
      url: this.#wire.url,
      headers: this.#wire.headers,
      body,
      signal,
      idleTimeoutMs: this.#idleTimeoutMs,
      fetch: this.#settings.fetch,
    });
    const events = readSse(response.body!, {
      signal,
      idleTimeoutMs: this.#idleTimeoutMs,
      provider: this.name,
    });
    try {
      yield* this.#wire.decode(events, this.#context);
    } catch (error) {
      throw this.#located(error);
    }
  }

  /**
   * A failure while reading the stream (a silent server, a cut-off or malformed stream) named
   * with the URL requested, as the HTTP failures are.
   */
  #located(error: unknown): unknown {
    if (!(error instanceof ProviderError) || error.constructor !== ProviderError) return error;
    const where = `POST ${displayUrl(this.#wire.url)}`;
    if (error.message.includes(where)) return error;
    const label = `${this.name}: `;
    const rest = error.message.startsWith(label)
      ? error.message.slice(label.length)
      : error.message;
    const fixAt = error.fix ? rest.lastIndexOf(`\nfix: ${error.fix}`) : -1;
    const message = fixAt >= 0 ? rest.slice(0, fixAt) : rest;
    return new ProviderError(error.code as ProviderErrorCode, `${label}${where}: ${message}`, {
      status: error.status,
      retryable: error.retryable,
      retryAfterMs: error.retryAfterMs,
      fix: error.fix,
      cause: error,
    });
  }
}
