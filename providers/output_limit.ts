/**
 * Learning a model's real output limit from the 400 that rejects a larger cap, so one wrong
 * guess costs one extra request per session instead of a failed turn. Wire-neutral.
 *
 * @module
 */
import { ProviderError } from "./errors.ts";
import type { Chunk, ProviderRequest } from "./types.ts";

// How servers word the limit, most specific first:
// Anthropic: "max_tokens: 400000 > 128000, which is the maximum allowed number of output tokens"
// OpenAI: "max_tokens is too large: 500000. This model supports at most 16384 completion tokens"
// DeepSeek: "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]"
// OpenAI Responses: "Invalid 'max_output_tokens': ... Expected a value <= 128000, but got …"
// vLLM/others: "max_tokens must be less than or equal to 4096", "... must be at most 4096"
const PATTERNS: readonly RegExp[] = [
  /\bmax_tokens\s*:\s*\d+\s*>\s*(\d+)/i,
  /supports at most (\d+) (?:completion|output) tokens/i,
  /valid range of (?:max_tokens|max_output_tokens|max_completion_tokens) is \[\s*\d+\s*,\s*(\d+)\s*\]/i,
  /\b(?:max_tokens|max_output_tokens|max_completion_tokens|maxOutputTokens)\b[^\d]{0,100}?(?:at most|less than or equal to|<=|≤|maximum(?: allowed)?(?: value)?(?: is| of)?)\s*(\d+)/i,
];

/** The output-token limit stated in an error message, if it states one. */
export function parseOutputLimit(message: string): number | undefined {
  for (const pattern of PATTERNS) {
    const match = pattern.exec(message);
    if (!match) continue;
    const limit = Number(match[1]);
    if (Number.isSafeInteger(limit) && limit > 0) return limit;
  }
  return undefined;
}

/** The limit one provider instance learned; lives as long as the instance (the session). */
export class OutputLimitMemory {
  #limit: number | undefined;

  /** The learned limit, if any. */
  get limit(): number | undefined {
    return this.#limit;
  }

  /** Records a limit; only a lower one replaces what is known. Returns whether it changed. */
  learn(limit: number): boolean {
    if (this.#limit !== undefined && this.#limit <= limit) return false;
    this.#limit = limit;
    return true;
  }

  /** `requested` capped by the learned limit. */
  clamp(requested: number | undefined): number | undefined {
    if (requested === undefined || this.#limit === undefined) return requested;
    return Math.min(requested, this.#limit);
  }
}

/**
 * Runs `run` with the request's cap clamped to what `memory` knows. When the server rejects
 * the cap with a 400 that states the real limit before any output, the limit is learned,
 * `onLearn` is told, and the request is sent once more with the cap lowered.
 */
export async function* streamWithOutputLimit(
  req: ProviderRequest,
  opts: {
    memory: OutputLimitMemory;
    /** Sends one request. */
    run: (req: ProviderRequest) => AsyncIterable<Chunk>;
    onLearn?: (limit: number) => void;
  },
): AsyncGenerator<Chunk> {
  const { memory, run, onLearn } = opts;
  let current = withCap(req, memory.clamp(req.maxOutputTokens));
  for (let attempt = 1;; attempt++) {
    let yielded = false;
    try {
      for await (const chunk of run(current)) {
        yielded = true;
        yield chunk;
      }
      return;
    } catch (error) {
      if (yielded || attempt > 1) throw error;
      if (!(error instanceof ProviderError) || error.code !== "provider_bad_request") throw error;
      const limit = parseOutputLimit(error.message);
      const sent = current.maxOutputTokens;
      if (limit === undefined || sent === undefined || sent <= limit) throw error;
      if (memory.learn(limit)) onLearn?.(limit);
      current = withCap(current, limit);
    }
  }
}

function withCap(req: ProviderRequest, cap: number | undefined): ProviderRequest {
  return cap === req.maxOutputTokens ? req : { ...req, maxOutputTokens: cap };
}
