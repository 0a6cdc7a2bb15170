/**
 * The `anthropic` provider kind: the Anthropic Messages API over SSE (Anthropic, DeepSeek's
 * Anthropic-compatible endpoint, gateways speaking the same format).
 *
 * @module
 */
import { capabilitiesFor, type ProviderCapabilities } from "../capabilities.ts";
import type { KindDescriptor, ProviderSettings } from "../registry.ts";
import { SseProvider } from "../sse_provider.ts";
import type { Chunk, Provider, ProviderRequest } from "../types.ts";
import {
  type AnthropicBodyOptions,
  buildMessagesBody,
  buildMessagesHeaders,
  resolveMessagesUrl,
} from "./request.ts";
import { decodeMessagesStream } from "./stream.ts";
import { ProviderOptionError } from "../errors.ts";

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

/** The body options for one request: the cap and, when enabled, a valid thinking budget. */
function bodyOptions(
  { maxTokens, thinking, thinkingBudget }: {
    maxTokens: number;
    thinking: "enabled" | "disabled" | undefined;
    thinkingBudget: number | undefined;
  },
  caps: ProviderCapabilities,
): AnthropicBodyOptions {
  const options: AnthropicBodyOptions = { maxTokens: Math.max(1, Math.floor(maxTokens)) };
  if (thinking === "disabled") options.thinking = "disabled";
  if (thinking === "enabled") {
    if (caps.ignoresThinkingBudget) {
      options.thinking = "enabled";
    } else {
      // Anthropic needs 1024 <= budget_tokens < max_tokens; below that thinking cannot run.
      const budget = Math.min(
        thinkingBudget ?? Math.floor(options.maxTokens / 2),
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

/** A provider speaking the Anthropic Messages wire format. */
export class AnthropicProvider extends SseProvider {
  readonly #caps: ProviderCapabilities;

  constructor(settings: ProviderSettings) {
    const caps = capabilitiesFor({ ...settings, kind: "anthropic" });
    const thinking = settings.options?.thinking;
    if (thinking !== undefined && thinking !== "enabled" && thinking !== "disabled") {
      throw new ProviderOptionError(settings.name, "thinking", '"enabled" or "disabled"');
    }
    const budget = settings.options?.thinking_budget;
    if (budget !== undefined && (!Number.isInteger(budget) || (budget as number) < 1)) {
      throw new ProviderOptionError(settings.name, "thinking_budget", "a positive integer");
    }
    super(settings, {
      url: resolveMessagesUrl(settings),
      headers: buildMessagesHeaders(settings),
      idleTimeoutMs: ANTHROPIC_IDLE_TIMEOUT_MS,
      buildBody: (req) =>
        buildMessagesBody(
          req,
          bodyOptions({
            maxTokens: req.maxOutputTokens!,
            thinking,
            thinkingBudget: budget as number | undefined,
          }, caps),
        ),
      decode: decodeMessagesStream,
    });
    this.#caps = caps;
  }

  /** Streams one completion; see {@link Provider.stream}. */
  override stream(req: ProviderRequest, opts: { signal: AbortSignal }): AsyncIterable<Chunk> {
    // The wire format requires a cap: the caller's, else the best known for the endpoint.
    const filled: ProviderRequest = req.maxOutputTokens !== undefined ? req : {
      ...req,
      maxOutputTokens: this.limits.limit ?? this.#caps.automaticOutputTokens ??
        this.#caps.defaultMaxTokens ?? ANTHROPIC_DESCRIPTOR.defaultMaxTokens!,
    };
    return super.stream(filled, opts);
  }
}

/** Builds an `anthropic` provider; the factory registered for the kind. */
export function createAnthropicProvider(settings: ProviderSettings): Provider {
  return new AnthropicProvider(settings);
}
