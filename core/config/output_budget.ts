/**
 * The per-request output cap (`max_output_tokens`, spec §3.1/§3.6). It is independent of the
 * compaction threshold and never raises or lowers `compact_ratio`. What an endpoint needs or
 * does on its own comes from the provider capabilities (declared as data), never from a
 * vendor or model name here.
 *
 * @module
 */
import { capabilitiesFor, type ProviderCapabilities } from "../../providers/capabilities.ts";
import type { ResolvedModel } from "./types.ts";

/** Facts learned at run time that refine the budget. */
export interface OutputBudgetOptions {
  /** The model's output limit a provider learned from a 400 in this session. */
  learnedLimit?: number;
}

/** The cap to send and whether the context layer should compact first. */
export interface OutputBudgetPlan {
  /** The cap to send; `undefined` omits the field. */
  maxOutputTokens?: number;
  /**
   * The user chose to omit the cap (`max_output_tokens < 0`) but the endpoint's known
   * automatic budget no longer fits the remaining window: compact instead of overriding the
   * choice. When the wire format requires a cap anyway, `maxOutputTokens` holds the clamp.
   */
  compact: boolean;
}

/** The capabilities of the resolved model's endpoint. */
export function resolvedCapabilities(resolved: ResolvedModel): ProviderCapabilities {
  const p = resolved.provider;
  return capabilitiesFor({
    kind: p.kind,
    baseUrl: p.base_url,
    requestUrl: p.request_url,
    chatUrl: p.chat_url,
    model: resolved.model,
    options: p.options,
  });
}

/**
 * The provider's automatic output budget for this model, when known: the endpoint's declared
 * budget (official DeepSeek 384K) or the limit learned from a 400, whichever is lower.
 */
export function automaticOutputTokens(
  resolved: ResolvedModel,
  opts: OutputBudgetOptions = {},
): number | undefined {
  const declared = resolvedCapabilities(resolved).automaticOutputTokens;
  const learned = opts.learnedLimit;
  if (declared === undefined) return learned;
  return learned === undefined ? declared : Math.min(declared, learned);
}

/**
 * Plans the output cap for a request whose prompt is `promptTokens` long:
 * - `max_output_tokens = 0` (provider automatic): omitted while the automatic budget fits in
 *   the remaining window, else clamped to it; a kind that requires the field sends the
 *   automatic budget (or its default cap) clamped to the remaining window;
 * - positive: the user's cap, clamped to the remaining window and any learned limit (≥ 1);
 * - negative: omitted; when the known automatic budget cannot fit, `compact` is set. A kind
 *   that requires the field sends the clamped automatic value.
 */
export function outputBudgetPlan(
  resolved: ResolvedModel,
  promptTokens: number,
  opts: OutputBudgetOptions = {},
): OutputBudgetPlan {
  if (!Number.isFinite(promptTokens) || promptTokens < 0) {
    throw new RangeError(`promptTokens must be a non-negative number, got ${promptTokens}`);
  }
  const caps = resolvedCapabilities(resolved);
  const remaining = Math.floor(resolved.contextWindow - promptTokens);
  const clamp = (n: number): number => Math.max(1, Math.min(n, remaining));
  const cap = resolved.maxOutputTokens;
  const automatic = automaticOutputTokens(resolved, opts);
  if (cap > 0) {
    const limited = opts.learnedLimit === undefined ? cap : Math.min(cap, opts.learnedLimit);
    return { maxOutputTokens: clamp(limited), compact: false };
  }
  const compact = cap < 0 && automatic !== undefined && remaining < automatic;
  if (caps.requiresMaxTokens) {
    const base = automatic ?? caps.defaultMaxTokens;
    return { maxOutputTokens: base === undefined ? undefined : clamp(base), compact };
  }
  if (cap < 0 || automatic === undefined || remaining >= automatic) return { compact };
  return { maxOutputTokens: clamp(remaining), compact: false };
}

/** The cap to send (see {@link outputBudgetPlan}), or `undefined` to omit the field. */
export function outputTokenBudget(
  resolved: ResolvedModel,
  promptTokens: number,
  opts: OutputBudgetOptions = {},
): number | undefined {
  return outputBudgetPlan(resolved, promptTokens, opts).maxOutputTokens;
}
