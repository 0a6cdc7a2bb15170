/**
 * The `openai` provider kind: OpenAI-compatible `/chat/completions` over SSE (OpenAI, DeepSeek,
 * OpenRouter, vLLM, …).
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
  buildHeaders,
  buildRequestBody,
  type MaxTokensField,
  resolveRequestUrl,
} from "./request.ts";
import { decodeChatStream } from "./stream.ts";

/**
 * Default for abandoning a silent stream. Reasoning models may think for minutes before the
 * first token, but servers send `: keep-alive` comments meanwhile, which count as activity.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** A provider speaking the Chat Completions wire format. */
export class OpenAiProvider implements Provider {
  readonly name: string;
  readonly #settings: ProviderSettings;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];
  readonly #retry: RetryPolicy;
  readonly #idleTimeoutMs: number;
  readonly #maxTokensField: MaxTokensField;
  readonly #limits = new OutputLimitMemory();

  constructor(settings: ProviderSettings) {
    this.name = settings.name;
    this.#settings = settings;
    this.#url = resolveRequestUrl(settings);
    this.#headers = buildHeaders(settings);
    this.#secrets = secretsOf(settings);
    this.#retry = settings.retry ?? DEFAULT_RETRY_POLICY;
    this.#idleTimeoutMs = settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const field = settings.options?.max_tokens_field;
    if (field !== undefined && field !== "max_tokens" && field !== "max_completion_tokens") {
      throw new TypeError(
        `provider "${settings.name}": max_tokens_field must be "max_tokens" or "max_completion_tokens"`,
      );
    }
    this.#maxTokensField = field ?? "max_tokens";
  }

  /** Streams one completion; see {@link Provider.stream}. */
  stream(req: ProviderRequest, opts: { signal: AbortSignal }): AsyncIterable<Chunk> {
    const chunks = streamWithOutputLimit(
      req,
      this.#limits,
      (r) => {
        const body = buildRequestBody(r, { maxTokensField: this.#maxTokensField });
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
      // OpenAI and DeepSeek send `{"error":{"message",...}}`, the default extractor's first shape.
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
    yield* decodeChatStream(events, context);
  }
}

/** Builds an `openai` provider; the factory registered for the kind. */
export function createOpenAiProvider(settings: ProviderSettings): Provider {
  return new OpenAiProvider(settings);
}
