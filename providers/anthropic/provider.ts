/**
 * The `anthropic` provider kind: the Anthropic Messages API over SSE (Anthropic, DeepSeek's
 * Anthropic-compatible endpoint, gateways speaking the same format).
 *
 * @module
 */
import { capabilitiesFor, type ProviderCapabilities } from "../capabilities.ts";
import { defaultErrorMessage, postForStream } from "../http.ts";
import { OutputLimitMemory, streamWithOutputLimit } from "../output_limit.ts";
import type { KindDescriptor, ProviderSettings, RetryPolicy } from "../registry.ts";
import { DEFAULT_RETRY_POLICY, retryingStream } from "../retry.ts";
import { secretsOf } from "../settings.ts";
import { readSse } from "../sse.ts";
import { finishToolCalls } from "../tool_call_finish.ts";
import type { Chunk, Provider, ProviderRequest } from "../types.ts";
import {
  type AnthropicBodyOptions,
  buildMessagesBody,
  buildMessagesHeaders,
  resolveMessagesUrl,
} from "./request.ts";
import { decodeMessagesStream } from "./stream.ts";

/** Abandon a stream silent for this long; servers send `ping` events meanwhile. */
export const ANTHROPIC_IDLE_TIMEOUT_MS = 300_000;

/** What the Messages wire format demands: `max_tokens` on every request. */
export const ANTHROPIC_DESCRIPTOR: KindDescriptor = {
  requiresMaxTokens: true,
  // Sent only when nothing is known about the endpoint; a 400 naming the real limit lowers it.
  defaultMaxTokens: 32_768,
};

/** Smallest `budget_tokens` Anthropic accepts for extended thinking. */
const MIN_THINKING_BUDGET = 1024;

/** A provider speaking the Anthropic Messages wire format. */
export class AnthropicProvider implements Provider {
  readonly name: string;
  readonly #settings: ProviderSettings;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];
  readonly #retry: RetryPolicy;
  readonly #idleTimeoutMs: number;
  readonly #caps: ProviderCapabilities;
  readonly #thinking?: "enabled" | "disabled";
  readonly #thinkingBudget?: number;
  readonly #limits = new OutputLimitMemory();

  constructor(settings: ProviderSettings) {
    this.name = settings.name;
    this.#settings = settings;
    this.#url = resolveMessagesUrl(settings);
    this.#headers = buildMessagesHeaders(settings);
    this.#secrets = secretsOf(settings);
    this.#retry = settings.retry ?? DEFAULT_RETRY_POLICY;
    this.#idleTimeoutMs = settings.idleTimeoutMs ?? ANTHROPIC_IDLE_TIMEOUT_MS;
    this.#caps = capabilitiesFor({ ...settings, kind: "anthropic" });
    const thinking = settings.options?.thinking;
    if (thinking !== undefined && thinking !== "enabled" && thinking !== "disabled") {
      throw new TypeError(
        `provider "${settings.name}": thinking must be "enabled" or "disabled"`,
      );
    }
    this.#thinking = thinking;
    const budget = settings.options?.thinking_budget;
    if (budget !== undefined && (!Number.isInteger(budget) || (budget as number) < 1)) {
      throw new TypeError(
        `provider "${settings.name}": thinking_budget must be a positive integer`,
      );
    }
    this.#thinkingBudget = budget as number | undefined;
  }

  /** Streams one completion; see {@link Provider.stream}. */
  stream(req: ProviderRequest, opts: { signal: AbortSignal }): AsyncIterable<Chunk> {
    // The wire format requires a cap: the caller's, else the best known for the endpoint.
    const filled: ProviderRequest = req.maxOutputTokens !== undefined ? req : {
      ...req,
      maxOutputTokens: this.#limits.limit ?? this.#caps.automaticOutputTokens ??
        this.#caps.defaultMaxTokens ?? ANTHROPIC_DESCRIPTOR.defaultMaxTokens!,
    };
    const chunks = streamWithOutputLimit(
      filled,
      this.#limits,
      (r) => {
        const body = buildMessagesBody(r, this.#bodyOptions(r.maxOutputTokens!));
        return retryingStream(() => this.#attempt(body, opts.signal), {
          signal: opts.signal,
          policy: this.#retry,
        });
      },
      this.#settings.onOutputLimit,
    );
    return finishToolCalls(chunks, { toolNames: req.tools.map((t) => t.name) });
  }

  #bodyOptions(maxTokens: number): AnthropicBodyOptions {
    const options: AnthropicBodyOptions = { maxTokens: Math.max(1, Math.floor(maxTokens)) };
    if (this.#thinking === "disabled") options.thinking = "disabled";
    if (this.#thinking === "enabled") {
      if (this.#caps.ignoresThinkingBudget) {
        options.thinking = "enabled";
      } else {
        // Anthropic needs 1024 <= budget_tokens < max_tokens; below that thinking cannot run.
        const budget = Math.min(
          this.#thinkingBudget ?? Math.floor(options.maxTokens / 2),
          options.maxTokens - 1,
        );
        if (budget >= MIN_THINKING_BUDGET) {
          options.thinking = "enabled";
          options.thinkingBudget = budget;
        }
      }
    }
    return options;
  }

  async *#attempt(body: string, signal: AbortSignal): AsyncGenerator<Chunk> {
    const context = {
      provider: this.name,
      // `{"type":"error","error":{"type","message"}}`: the default extractor's first shape.
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
    yield* decodeMessagesStream(events, context);
  }
}

/** Builds an `anthropic` provider; the factory registered for the kind. */
export function createAnthropicProvider(settings: ProviderSettings): Provider {
  return new AnthropicProvider(settings);
}
