/**
 * The `responses` provider kind: the OpenAI Responses API over SSE (`/responses`), stateless.
 *
 * @module
 */
import { defaultErrorMessage, postForStream } from "../http.ts";
import { OutputLimitMemory, streamWithOutputLimit } from "../output_limit.ts";
import type { ProviderSettings, RetryPolicy } from "../registry.ts";
import { DEFAULT_RETRY_POLICY, retryingStream } from "../retry.ts";
import { secretsOf } from "../settings.ts";
import { readSse } from "../sse.ts";
import { finishToolCalls } from "../tool_call_finish.ts";
import type { Chunk, Provider, ProviderRequest } from "../types.ts";
import {
  buildResponsesBody,
  buildResponsesHeaders,
  resolveResponsesUrl,
  type ResponsesBodyOptions,
} from "./request.ts";
import { decodeResponsesStream } from "./stream.ts";

/** Abandon a stream silent for this long; reasoning models may think for minutes. */
export const RESPONSES_IDLE_TIMEOUT_MS = 300_000;

/** A provider speaking the Responses wire format. */
export class ResponsesProvider implements Provider {
  readonly name: string;
  readonly #settings: ProviderSettings;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];
  readonly #retry: RetryPolicy;
  readonly #idleTimeoutMs: number;
  readonly #bodyOptions: ResponsesBodyOptions;
  readonly #limits = new OutputLimitMemory();

  constructor(settings: ProviderSettings) {
    this.name = settings.name;
    this.#settings = settings;
    this.#url = resolveResponsesUrl(settings);
    this.#headers = buildResponsesHeaders(settings);
    this.#secrets = secretsOf(settings);
    this.#retry = settings.retry ?? DEFAULT_RETRY_POLICY;
    this.#idleTimeoutMs = settings.idleTimeoutMs ?? RESPONSES_IDLE_TIMEOUT_MS;
    const options = settings.options ?? {};
    const include = options.encrypted_reasoning;
    if (include !== undefined && typeof include !== "boolean") {
      throw new TypeError(`provider "${settings.name}": encrypted_reasoning must be true or false`);
    }
    const summary = options.reasoning_summary;
    if (summary !== undefined && typeof summary !== "string") {
      throw new TypeError(`provider "${settings.name}": reasoning_summary must be a string`);
    }
    this.#bodyOptions = { includeEncryptedReasoning: include, reasoningSummary: summary };
  }

  /** Streams one completion; see {@link Provider.stream}. */
  stream(req: ProviderRequest, opts: { signal: AbortSignal }): AsyncIterable<Chunk> {
    const chunks = streamWithOutputLimit(
      req,
      this.#limits,
      (r) => {
        const body = buildResponsesBody(r, this.#bodyOptions);
        return retryingStream(() => this.#attempt(body, opts.signal), {
          signal: opts.signal,
          policy: this.#retry,
        });
      },
      this.#settings.onOutputLimit,
    );
    return finishToolCalls(chunks, { toolNames: req.tools.map((t) => t.name) });
  }

  async *#attempt(body: string, signal: AbortSignal): AsyncGenerator<Chunk> {
    const context = {
      provider: this.name,
      extractMessage: defaultErrorMessage,
      secrets: this.#secrets,
    };
    const response = await postForStream({
      ...context,
      url: this.#url,
      headers: this.#headers,
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
    yield* decodeResponsesStream(events, context);
  }
}

/** Builds a `responses` provider; the factory registered for the kind. */
export function createResponsesProvider(settings: ProviderSettings): Provider {
  return new ResponsesProvider(settings);
}
