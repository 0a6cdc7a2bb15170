/**
 * Token estimation for compaction planning. A cheap character-based estimate, recalibrated by
 * the prompt counts providers actually report: every reply (including summary replies and
 * overflow errors that state a count) feeds back, so the trigger tracks the real tokenizer.
 *
 * @module
 */
import type { Message, ToolSchema } from "../../providers/types.ts";

/** Characters per token assumed before any calibration. */
const BASE_CHARS_PER_TOKEN = 3.5;
/** Per-message framing overhead (role, separators), in tokens. */
const MESSAGE_OVERHEAD = 4;
/** Calibration never moves the estimate further than this factor either way. */
const MIN_SCALE = 0.25;
const MAX_SCALE = 4;

/**
 * Tokens assumed per attached image. Providers bill images by their pixel size (roughly
 * 1–2k tokens for a screenshot); a flat, generous figure keeps the trigger conservative until
 * a real prompt count recalibrates the estimate.
 */
export const IMAGE_TOKENS = 1600;

/** Characters of a message that reach the provider (never `rawContent`). */
function messageChars(m: Message): number {
  let n = m.content.length + (m.reasoning?.length ?? 0);
  n += (m.images?.length ?? 0) * IMAGE_TOKENS * BASE_CHARS_PER_TOKEN;
  for (const call of m.toolCalls ?? []) n += call.name.length + call.arguments.length + 16;
  return n;
}

/** Estimates prompt tokens; per-message raw estimates are memoized (messages are immutable). */
export class TokenEstimator {
  #scale = 1;
  readonly #cache = new WeakMap<Message, number>();

  /** The current calibration factor (real / raw). */
  get scale(): number {
    return this.#scale;
  }

  /** Uncalibrated tokens of one message. */
  rawMessage(m: Message): number {
    let tokens = this.#cache.get(m);
    if (tokens === undefined) {
      tokens = Math.ceil(messageChars(m) / BASE_CHARS_PER_TOKEN) + MESSAGE_OVERHEAD;
      this.#cache.set(m, tokens);
    }
    return tokens;
  }

  /** Uncalibrated tokens of a whole request. */
  rawRequest(system: string, tools: readonly ToolSchema[], messages: readonly Message[]): number {
    let tokens = Math.ceil(system.length / BASE_CHARS_PER_TOKEN);
    for (const tool of tools) {
      tokens += Math.ceil(
        (tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length) /
          BASE_CHARS_PER_TOKEN,
      );
    }
    for (const m of messages) tokens += this.rawMessage(m);
    return tokens;
  }

  /** Calibrated estimate of `raw` tokens. */
  calibrated(raw: number): number {
    return Math.ceil(raw * this.#scale);
  }

  /** Calibrated tokens of one message. */
  message(m: Message): number {
    return this.calibrated(this.rawMessage(m));
  }

  /**
   * Feeds back a real prompt count for a request whose raw estimate was `raw`. The newest
   * observation dominates (providers and models change tokenizers under one config).
   */
  observe(raw: number, actualPromptTokens: number): void {
    if (raw <= 0 || actualPromptTokens <= 0) return;
    const ratio = Math.min(MAX_SCALE, Math.max(MIN_SCALE, actualPromptTokens / raw));
    this.#scale = this.#scale * 0.25 + ratio * 0.75;
  }
}
