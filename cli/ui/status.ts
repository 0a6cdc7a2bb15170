/**
 * The status line's content: model, context use (of the window and of the compaction
 * trigger), cache hit ratio (and the meter's prefix share), a warning after an unplanned cache
 * break, and cost, shortened to fit narrow terminals.
 *
 * @module
 */
import stringWidth from "string-width";
import type { UsageTotals } from "../../core/agent/events.ts";
import type { SessionCache } from "./usage.ts";

/** What the status line reports. */
export interface StatusInfo {
  model: string;
  contextWindow: number;
  /** `[agent].compact_ratio`: compaction starts at `contextWindow × compactRatio`. */
  compactRatio: number;
  /** Prompt tokens of the latest request. */
  lastPromptTokens: number;
  totals: UsageTotals;
  effort?: string;
  /** Permission preset, e.g. `ask`. */
  mode?: string;
  /** Whether plan mode is on (a collaboration state beside the preset, which it keeps). */
  plan?: boolean;
  /** The session's goal (Goal mode): its status, rounds, tokens and whether it is armed. */
  goal?: { status: string; rounds: number; tokens: number; requests: number; armed: boolean };
  /** The cache-break meter's measure of the session, once a request was made. */
  cache?: SessionCache;
}

/** One piece of the line; higher `drop` numbers are dropped first when space runs out. */
export interface StatusSegment {
  key: "model" | "context" | "cache" | "break" | "cost" | "effort" | "mode" | "plan" | "goal";
  text: string;
  /** A shorter form tried before dropping the segment. */
  short?: string;
  drop: number;
}

/** `950`, `12.3k`, `128k`, `1.2M`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) {
    const k = n / 1000;
    return `${k < 100 ? k.toFixed(1).replace(/\.0$/, "") : Math.round(k)}k`;
  }
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

function percent(part: number, whole: number): string {
  if (whole <= 0) return "–";
  const p = (part / whole) * 100;
  return `${p > 0 && p < 1 ? "<1" : Math.round(p)}%`;
}

/** Money with a symbol for the common currencies. */
export function formatCost(cost: number, currency?: string): string {
  const digits = cost < 1 ? 4 : 2;
  const amount = cost.toFixed(digits);
  if (!currency || currency === "USD") return `$${amount}`;
  if (currency === "CNY") return `¥${amount}`;
  return `${amount} ${currency}`;
}

/** The trigger in tokens: `floor(window × ratio)`, as spec §3.6 defines it. */
export function compactTrigger(contextWindow: number, ratio: number): number {
  return Math.floor(contextWindow * ratio);
}

/** All segments, longest forms. */
export function statusSegments(info: StatusInfo): StatusSegment[] {
  const used = info.lastPromptTokens;
  const trigger = compactTrigger(info.contextWindow, info.compactRatio);
  const segments: StatusSegment[] = [
    { key: "model", text: info.model, drop: 99 },
    {
      key: "context",
      text: `ctx ${formatTokens(used)}/${formatTokens(info.contextWindow)} ${
        percent(used, info.contextWindow)
      } · ${percent(used, trigger)} of compact`,
      short: `ctx ${percent(used, info.contextWindow)}·${percent(used, trigger)}`,
      drop: 1,
    },
  ];
  const hit = `cache ${percent(info.totals.cacheHitTokens, info.totals.promptTokens)}`;
  const bytes = info.cache?.requestBytes ?? 0;
  segments.push({
    key: "cache",
    // The provider's reported hits, then the share of request bytes that repeated the prefix.
    text: bytes > 0 ? `${hit} (prefix ${percent(info.cache!.cachedBytes, bytes)})` : hit,
    short: hit,
    drop: 3,
  });
  const last = info.cache?.last;
  if (last && !last.planned) {
    // The latest break was no maintenance step: something moved the prefix (docs/CONTEXT.md).
    const count = info.cache!.unplanned;
    segments.push({
      key: "break",
      text: `⚠ cache break: ${last.cause}${count > 1 ? ` (${count} unplanned)` : ""}`,
      short: `⚠ break: ${last.cause}`,
      drop: 0,
    });
  }
  if (info.totals.cost !== undefined) {
    segments.push({
      key: "cost",
      text: formatCost(info.totals.cost, info.totals.currency),
      drop: 2,
    });
  }
  if (info.effort) segments.push({ key: "effort", text: `effort ${info.effort}`, drop: 5 });
  // Shift+Tab changes the mode, so it outlasts the effort when the line gets narrow.
  if (info.mode) segments.push({ key: "mode", text: info.mode, drop: 4 });
  // Writers are refused while it is on: a narrow line gives it up last, with a cache break.
  if (info.plan) segments.push({ key: "plan", text: "plan", drop: 0 });
  const goal = info.goal;
  if (goal) {
    // An active goal the driver will not run (a resumed session) says so: `/goal resume`.
    const state = goal.status === "active" && !goal.armed ? "active, disarmed" : goal.status;
    segments.push({
      key: "goal",
      text: `goal ${state} · round ${goal.rounds} · ${formatTokens(goal.tokens)} tok · ` +
        `${goal.requests} req`,
      short: `goal ${goal.status === "active" && !goal.armed ? "disarmed" : goal.status}`,
      // Outlasts the effort, not the permission mode.
      drop: 4.5,
    });
  }
  return segments;
}

const SEPARATOR = " · ";

function join(segments: readonly { text: string }[]): string {
  return segments.map((s) => s.text).join(SEPARATOR);
}

/** Truncates plain text to `width` columns with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  if (width <= 1) return width === 1 ? "…" : "";
  let out = "";
  for (const ch of text) {
    if (stringWidth(out + ch) > width - 1) break;
    out += ch;
  }
  return `${out}…`;
}

/**
 * The segments that fit `width`: short forms first, then the least important segments are
 * dropped, and the model name is truncated last.
 */
export function fitStatus(segments: readonly StatusSegment[], width: number): StatusSegment[] {
  let current = [...segments];
  if (stringWidth(join(current)) <= width) return current;
  current = current.map((s) => s.short ? { ...s, text: s.short } : s);
  const byDrop = current.filter((s) => s.key !== "model").sort((a, b) => b.drop - a.drop);
  for (const victim of byDrop) {
    if (stringWidth(join(current)) <= width) break;
    current = current.filter((s) => s.key !== victim.key);
  }
  if (stringWidth(join(current)) > width) {
    const rest = current.filter((s) => s.key !== "model");
    const room = width - (rest.length ? stringWidth(join(rest)) + SEPARATOR.length : 0);
    if (room < 4) return [{ ...current[0], text: truncate(current[0].text, width) }];
    current = current.map((s) => s.key === "model" ? { ...s, text: truncate(s.text, room) } : s);
  }
  return current;
}
