/**
 * The per-request output cap (`max_output_tokens`, spec §3.1/§3.6). It is independent of the
 * compaction threshold and never raises or lowers `compact_ratio`.
 *
 * @module
 */
import { endpointOrigins } from "./endpoint.ts";
import { DEEPSEEK_ORIGIN } from "./prices.ts";
import type { ResolvedModel } from "./types.ts";

/**
 * Output budgets providers apply on their own when the field is omitted, by endpoint origin.
 * Official DeepSeek: "MAX OUTPUT: 384K" (https://api-docs.deepseek.com/quick_start/pricing).
 * Third-party endpoints are absent: no shared window is assumed for them.
 */
const AUTOMATIC_OUTPUT_TOKENS: Readonly<Record<string, number>> = {
  [DEEPSEEK_ORIGIN]: 384 * 1024,
};

/** The provider's automatic output budget for this model, when known. */
export function automaticOutputTokens(resolved: ResolvedModel): number | undefined {
  return AUTOMATIC_OUTPUT_TOKENS[endpointOrigins(resolved.provider)[0].origin];
}

/**
 * The output cap to send with a request whose prompt is `promptTokens` long, or `undefined`
 * to omit the field:
 * - `max_output_tokens = 0` (provider automatic): omitted while the provider's automatic
 *   budget fits in the remaining window, else clamped to the remaining window;
 * - positive: the user's cap, clamped to the remaining window (at least 1);
 * - negative: always omitted (the context layer compacts when space runs out).
 */
export function outputTokenBudget(
  resolved: ResolvedModel,
  promptTokens: number,
): number | undefined {
  if (!Number.isFinite(promptTokens) || promptTokens < 0) {
    throw new RangeError(`promptTokens must be a non-negative number, got ${promptTokens}`);
  }
  const remaining = Math.floor(resolved.contextWindow - promptTokens);
  const cap = resolved.maxOutputTokens;
  if (cap < 0) return undefined;
  if (cap > 0) return Math.max(1, Math.min(cap, remaining));
  const automatic = automaticOutputTokens(resolved);
  if (automatic === undefined || remaining >= automatic) return undefined;
  return Math.max(1, remaining);
}
