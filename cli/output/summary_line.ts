/**
 * The one line a headless run ends with on stderr: what it took, so a person reading a CI log
 * sees the cost of the job without `--json`.
 *
 * @module
 */
import type { AgentEvent } from "../../core/agent/events.ts";
import { cacheHitRatio } from "../../core/agent/cost.ts";

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function tokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/**
 * `— 3 turns · 2 tool calls · 12.4k in / 310 out tokens · 87% cached · 0.0021 USD · 2.3 s`.
 *
 * (the cost only when the model has prices).
 */
export function runSummaryLine(
  done: Extract<AgentEvent, { type: "done" }>,
  opts: { durationMs: number },
): string {
  const u = done.usage;
  const parts = [
    count(done.turns, "turn"),
    count(done.toolCalls, "tool call"),
    `${tokens(u.promptTokens)} in / ${tokens(u.completionTokens)} out tokens`,
    `${Math.round(cacheHitRatio(u) * 100)}% cached`,
    ...(u.cost !== undefined ? [`${u.cost.toFixed(4)} ${u.currency ?? ""}`.trim()] : []),
    duration(opts.durationMs),
  ];
  return `— ${parts.join(" · ")}`;
}
