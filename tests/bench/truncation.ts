/**
 * How context maintenance scales with the view: one pressure transaction that must fall back
 * to the truncate projection (the summary model returns nothing) over 100, 200, 400 and 800
 * tool rounds, with the window sized so a third of the view has to go. Linear maintenance
 * shows about 2× per doubling.
 *
 * @module
 */
import { ContextManager } from "../../core/context/manager.ts";
import { TokenEstimator } from "../../core/context/estimator.ts";
import type { Message } from "../../providers/types.ts";
import { ScriptedProvider, textReply } from "../support/scripted_provider.ts";

/** One turn of `rounds` tool rounds with results of `size` characters. */
function rounds(count: number, size: number): Message[] {
  const out: Message[] = [{ role: "user", content: "read everything" }];
  for (let r = 0; r < count; r++) {
    const id = `c${r}`;
    out.push({
      role: "assistant",
      content: `step ${r}`,
      toolCalls: [{ id, name: "read_file", arguments: `{"path":"f${r}.txt"}` }],
    });
    out.push({
      role: "tool",
      toolCallId: id,
      name: "read_file",
      content: `${r} `.repeat(size / 2),
    });
  }
  return out;
}

/** Milliseconds of one maintenance transaction that truncates, per view size (best of `reps`: the
 * least disturbed by garbage collection and other load). */
export async function truncationScaling(
  sizes: readonly number[] = [100, 200, 400, 800],
  reps = 9,
): Promise<{ rounds: number; ms: number }[]> {
  const out: { rounds: number; ms: number }[] = [];
  for (const n of [sizes[0], ...sizes]) {
    const canonical = rounds(n, 2000);
    const times: number[] = [];
    for (let rep = 0; rep < reps; rep++) {
      const estimator = new TokenEstimator();
      const probe = new ContextManager({
        provider: new ScriptedProvider([]),
        model: "m",
        system: "system",
        tools: [],
        contextWindow: 1_000_000,
        compactRatio: 0.8,
        estimator,
      });
      const tokens = probe.estimate(canonical);
      const cm = new ContextManager({
        provider: new ScriptedProvider([textReply("")]),
        model: "m",
        system: "system",
        tools: [],
        // The view is 1.25 windows: over the hard limit, and a third of it must go.
        contextWindow: Math.floor(tokens / 1.25),
        compactRatio: 0.8,
        estimator,
      });
      const start = performance.now();
      const prepared = await cm.prepare(canonical, { signal: new AbortController().signal });
      times.push(performance.now() - start);
      if (prepared.reports.at(-1)?.phase !== "truncated") throw new Error("no truncation");
    }
    times.sort((a, b) => a - b);
    out.push({ rounds: n, ms: times[0] });
  }
  // The first size ran twice: once to warm the JIT up.
  return out.slice(1);
}

if (import.meta.main) {
  const result = await truncationScaling();
  for (let i = 0; i < result.length; i++) {
    const ratio = i ? (result[i].ms / result[i - 1].ms).toFixed(2) : "-";
    console.log(`${result[i].rounds} rounds: ${result[i].ms.toFixed(2)} ms (×${ratio})`);
  }
}
