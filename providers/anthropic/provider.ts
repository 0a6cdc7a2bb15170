/**
 * The `anthropic` provider kind: the Anthropic Messages API over SSE (Anthropic, DeepSeek's
 * Anthropic-compatible endpoint, gateways speaking the same format).
 *
 * @module
 */
import {
  capabilitiesFor,
  type ProviderCapabilities,
  requestForCapabilities,
} from "../capabilities.ts";
import type { KindDescriptor, ProviderSettings } from "../registry.ts";
import { SseProvider } from "../sse_provider.ts";
import type { Chunk, Provider, ProviderRequest } from "../types.ts";
import type { BodyBuffer, EncodedBody } from "../body_buffer.ts";
import {
  type AnthropicBodyOptions,
  buildMessagesBody,
  buildMessagesHeaders,
  messagesBodyPieces,
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
export const MIN_THINKING_BUDGET = 1024;

/** Output tokens kept beside the thinking budget for the answer itself. */
export const THINKING_ANSWER_RESERVE = 1024;

/**
 * The `budget_tokens` one request can carry: the session's budget while the request's cap holds
 * it plus {@link THINKING_ANSWER_RESERVE}, else the session budget halved as often as needed
 * (undefined below {@link MIN_THINKING_BUDGET}: thinking cannot run). Anthropic keys its prompt
 * cache on the thinking parameters, so the value is a function of the fixed session budget and
 * a coarse ladder, never of the exact cap: a window that shrinks token by token moves it only
 * when a rung no longer fits, a handful of times per session.
 */
export function thinkingBudgetFor(sessionBudget: number, maxTokens: number): number | undefined {
  let budget = Math.floor(sessionBudget);
  while (budget >= MIN_THINKING_BUDGET && budget + THINKING_ANSWER_RESERVE > maxTokens) {
    budget = Math.floor(budget / 2);
  }
  return budget >= MIN_THINKING_BUDGET ? budget : undefined;
}

/** The body options for one request: the cap and, when enabled, a valid thinking budget. */
function bodyOptions(
  { maxTokens, thinking, sessionBudget }: {
    maxTokens: number;
    thinking: "enabled" | "disabled" | undefined;
    sessionBudget: number;
  },
  caps: ProviderCapabilities,
): AnthropicBodyOptions {
  const options: AnthropicBodyOptions = { maxTokens: Math.max(1, Math.floor(maxTokens)) };
  if (thinking === "disabled") options.thinking = "disabled";
  if (thinking === "enabled") {
    if (caps.ignoresThinkingBudget) {
      options.thinking = "enabled";
    } else {
      const budget = thinkingBudgetFor(sessionBudget, options.maxTokens);
      if (budget !== undefined) {
        options.thinking = "enabled";
        options.thinkingBudget = budget;
      }
    }
  }
  return options;
}

/** The `thinking` field as the body writes it, `""` when absent. */
function thinkingWire(options: AnthropicBodyOptions): string {
  if (options.thinking === undefined) return "";
  const budget = options.thinking === "enabled" && options.thinkingBudget !== undefined
    ? `,"budget_tokens":${options.thinkingBudget}`
    : "";
  return `{"type":"${options.thinking}"${budget}}`;
}

/** A provider speaking the Anthropic Messages wire format. */
export class AnthropicProvider extends SseProvider {
  readonly #caps: ProviderCapabilities;
  readonly #thinking: "enabled" | "disabled" | undefined;
  /** The session's thinking budget, fixed when the provider (the session's) is made. */
  readonly #sessionBudget: number;

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
    // Chosen once from what is known before any request (the configured budget, else half the
    // endpoint's output cap), never from one request's window-clamped cap: a resumed session
    // picks the same value, and the bytes a prompt cache keys on hold still.
    const sessionBudget = (budget as number | undefined) ??
      Math.floor(
        (caps.automaticOutputTokens ?? caps.defaultMaxTokens ??
          ANTHROPIC_DESCRIPTOR.defaultMaxTokens!) / 2,
      );
    super(settings, {
      url: resolveMessagesUrl(settings),
      headers: buildMessagesHeaders(settings),
      idleTimeoutMs: ANTHROPIC_IDLE_TIMEOUT_MS,
      buildBody: (req) =>
        buildMessagesBody(
          requestForCapabilities(req, caps),
          bodyOptions({ maxTokens: req.maxOutputTokens!, thinking, sessionBudget }, caps),
        ),
      pieces: (req) =>
        messagesBodyPieces(
          requestForCapabilities(req, caps),
          bodyOptions({ maxTokens: req.maxOutputTokens!, thinking, sessionBudget }, caps),
        ),
      decode: decodeMessagesStream,
    });
    this.#caps = caps;
    this.#thinking = thinking;
    this.#sessionBudget = sessionBudget;
  }

  readonly #fills = new WeakMap<ProviderRequest, ProviderRequest>();

  /**
   * The `budget_tokens` this session sends while the output cap holds it (requests whose cap
   * cannot hold it send a smaller rung; see {@link thinkingBudgetFor}).
   */
  get thinkingBudget(): number {
    return this.#sessionBudget;
  }

  /** Streams one completion; see {@link Provider.stream}. */
  override stream(req: ProviderRequest, opts: { signal: AbortSignal }): AsyncIterable<Chunk> {
    return super.stream(this.#filled(req), opts);
  }

  /** The body {@link stream} sends first for `req`; see {@link Provider.body}. */
  override body(req: ProviderRequest): string {
    return super.body(this.#filled(req));
  }

  /**
   * The `thinking` field `req` is sent with (`thinking:` and its wire JSON, empty when the field
   * is absent). Anthropic keys its prompt cache on it although it follows `messages` in the
   * body: a change voids every cached message, and the cache-break meter reports it.
   */
  cacheKey(req: ProviderRequest): string {
    const filled = this.#filled(req);
    const maxTokens = this.limits.clamp(filled.maxOutputTokens)!;
    const options = bodyOptions(
      { maxTokens, thinking: this.#thinking, sessionBudget: this.#sessionBudget },
      this.#caps,
    );
    return `thinking:${thinkingWire(options)}`;
  }

  /**
   * Encodes the body {@link stream} sends first for `req` into a session's buffer; see
   * `BodyEncoding`.
   */
  override encode(req: ProviderRequest, buffer: BodyBuffer): EncodedBody {
    return super.encode(this.#filled(req), buffer);
  }

  /**
   * The wire format requires a cap: the caller's, else the best known for the endpoint. The
   * same filled request object for the same request while the cap holds, so `stream` finds
   * the body `encode` wrote.
   */
  #filled(req: ProviderRequest): ProviderRequest {
    if (req.maxOutputTokens !== undefined) return req;
    const maxOutputTokens = this.limits.limit ?? this.#caps.automaticOutputTokens ??
      this.#caps.defaultMaxTokens ?? ANTHROPIC_DESCRIPTOR.defaultMaxTokens!;
    let filled = this.#fills.get(req);
    if (filled?.maxOutputTokens !== maxOutputTokens) {
      filled = { ...req, maxOutputTokens };
      this.#fills.set(req, filled);
    }
    return filled;
  }
}

/** Builds an `anthropic` provider; the factory registered for the kind. */
export function createAnthropicProvider(settings: ProviderSettings): Provider {
  return new AnthropicProvider(settings);
}
