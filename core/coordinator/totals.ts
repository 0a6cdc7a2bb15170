/**
 * Usage of two sessions added up (planner and executor), for a coordinated run's totals.
 *
 * @module
 */
import { addUsage, emptyTotals } from "../agent/cost.ts";
import type { UsageTotals } from "../agent/events.ts";

function plus(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

/**
 * `a + b`. Costs add up only in one currency; in two, the total has no cost (the per-session
 * figures keep theirs).
 */
export function sumTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  const out = emptyTotals();
  addUsage(out, a);
  addUsage(out, b);
  const priced = [a, b].filter((t) => t.cost !== undefined);
  const currencies = new Set(priced.map((t) => t.currency));
  if (priced.length && currencies.size === 1) {
    out.cost = priced.reduce((sum, t) => sum + (t.cost ?? 0), 0);
    out.currency = priced[0].currency;
  }
  const requestBytes = plus(a.requestBytes, b.requestBytes);
  if (requestBytes !== undefined) out.requestBytes = requestBytes;
  const cachedBytes = plus(a.cachedBytes, b.cachedBytes);
  if (cachedBytes !== undefined) out.cachedBytes = cachedBytes;
  return out;
}
