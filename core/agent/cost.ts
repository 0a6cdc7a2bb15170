/**
 * Turns normalized usage into money with a per-model price table.
 *
 * @module
 */
import type { Usage } from "../../providers/types.ts";
import type { Price } from "../config/types.ts";
import type { AgentEvent, UsageTotals } from "./events.ts";

/** Cost of one request, in the price's currency. Prices are per million tokens. */
export function costOf(usage: Usage, price: Price): number {
  return (usage.cacheHitTokens * price.cache_hit + usage.cacheMissTokens * price.input +
    usage.completionTokens * price.output) / 1_000_000;
}

/** A fresh, zeroed totals record. */
export function emptyTotals(price?: Price): UsageTotals {
  const totals: UsageTotals = {
    promptTokens: 0,
    completionTokens: 0,
    cacheHitTokens: 0,
    cacheMissTokens: 0,
  };
  if (price) {
    totals.cost = 0;
    totals.currency = price.currency;
  }
  return totals;
}

/** Adds one request's usage (and cost, when priced) to `totals` in place. */
export function addUsage(totals: UsageTotals, usage: Usage, cost?: number): void {
  totals.promptTokens += usage.promptTokens;
  totals.completionTokens += usage.completionTokens;
  totals.cacheHitTokens += usage.cacheHitTokens;
  totals.cacheMissTokens += usage.cacheMissTokens;
  if (cost !== undefined) totals.cost = (totals.cost ?? 0) + cost;
}

/** Share of prompt tokens served from cache, 0..1 (0 when nothing was sent). */
export function cacheHitRatio(totals: UsageTotals): number {
  return totals.promptTokens === 0 ? 0 : totals.cacheHitTokens / totals.promptTokens;
}

/**
 * Counts one request's usage into `totals` (priced with `price` when given) and returns the
 * `usage` event that reports it.
 */
export function countRequest(
  totals: UsageTotals,
  usage: Usage,
  opts: { turn: number; price?: Price; purpose?: "vision" },
): Extract<AgentEvent, { type: "usage" }> {
  const cost = opts.price ? costOf(usage, opts.price) : undefined;
  addUsage(totals, usage, cost);
  return {
    type: "usage",
    turn: opts.turn,
    usage,
    cost,
    currency: opts.price?.currency,
    cacheHitRatio: cacheHitRatio(usage),
    totals: { ...totals },
    ...(opts.purpose ? { purpose: opts.purpose } : {}),
  };
}
