/**
 * Context-management measurements for `deno task bench`: a 300-turn session with a small
 * window against the fake server (how much of the input a prefix cache could serve, how many
 * summary requests it took and what they cost), and BM25 history latency over 100k messages.
 *
 * @module
 */
import { join } from "node:path";
import { openTestAgent } from "../support/host_agent.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import { HistoryIndex } from "../../core/memory/history.ts";
import { COMPACTION_INSTRUCTION } from "../../core/context/summary.ts";
import type { Message } from "../../providers/types.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { RecordedRequest } from "../fake_llm/mod.ts";

/** What the long session measured. */
export interface SessionMeasure {
  turns: number;
  requests: number;
  summaryRequests: number;
  summaryPromptTokens: number;
  summaryCompletionTokens: number;
  /** Shared-prefix bytes over all request bytes, summaries included. */
  prefixShare: number;
  /** Cache-hit tokens over prompt tokens, as the fake reported them. */
  cacheHitRatio: number;
  status: string;
}

function isSummary(req: RecordedRequest): boolean {
  const messages = (req.body as { messages: { content: string }[] }).messages;
  return messages.at(-1)?.content === COMPACTION_INSTRUCTION;
}

/** Runs a scripted session of `turns` model turns with a `window`-token context. */
export async function longCompactingSession(turns = 300, window = 24_000): Promise<SessionMeasure> {
  let normal = 0;
  const fake = await startFakeLlm({
    script: (req) => {
      if (isSummary(req)) {
        return {
          text: "Checkpoint: the data file was read step by step; continue stepping.",
          chunkBytes: 65536,
        };
      }
      normal++;
      return normal < turns
        ? {
          text: `Step ${normal}.`,
          toolCalls: [{ name: "read_file", arguments: '{"path":"data.txt"}' }],
          chunkBytes: 65536,
        }
        : { text: "Done.", chunkBytes: 65536 };
    },
  });
  const repo = await Deno.makeTempDir({ prefix: "reasonix-bench-ctx-" });
  const home = await Deno.makeTempDir({ prefix: "reasonix-bench-home-" });
  try {
    await Deno.writeTextFile(
      join(repo, "data.txt"),
      Array.from({ length: 40 }, (_, i) => `line ${i}: ${"lorem ipsum ".repeat(4)}`).join("\n"),
    );
    await Deno.writeTextFile(
      join(home, "config.toml"),
      `default_model = "fake"\n[agent]\nmax_turns = ${turns + 10}\n[[providers]]\nname = "fake"\n` +
        `kind = "openai"\nbase_url = "${fake.url}"\nmodels = ["m"]\ncontext_window = ${window}\n`,
    );
    const runtime = await openTestAgent({
      cwd: repo,
      env: { REASONIX_HOME: home, PATH: Deno.env.get("PATH") },
      flags: {},
    });
    let done: Extract<AgentEvent, { type: "done" }> | undefined;
    try {
      for await (
        const e of runtime.agent.run({ text: "step through data.txt" }, {
          signal: new AbortController().signal,
        })
      ) {
        if (e.type === "done") done = e;
      }
    } finally {
      await runtime.dispose();
    }
    const requests = fake.requests;
    const summaries = requests.filter(isSummary);
    const shared = requests.reduce((n, r) => n + r.sharedPrefixBytes, 0);
    const total = requests.reduce((n, r) => n + r.bodyText.length, 0);
    // The fake bills ~4 bytes per token; summary completions are the fixed text above.
    const summaryPromptTokens = summaries.reduce((n, r) => n + Math.ceil(r.bodyText.length / 4), 0);
    return {
      turns: done?.turns ?? 0,
      requests: requests.length,
      summaryRequests: summaries.length,
      summaryPromptTokens,
      summaryCompletionTokens: summaries.length * Math.ceil(70 / 4),
      prefixShare: shared / total,
      cacheHitRatio: done ? done.usage.cacheHitTokens / Math.max(1, done.usage.promptTokens) : 0,
      status: done?.status ?? "none",
    };
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/** Median BM25 query latency over `count` stored messages, and the time to index them. */
export async function historyLatency(
  count = 100_000,
  queries = 50,
): Promise<{ indexMs: number; medianQueryMs: number; p95QueryMs: number }> {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const vocabulary = Array.from({ length: 30_000 }, (_, i) => `w${i.toString(36)}`);
  const word = () => vocabulary[Math.floor(Math.pow(random(), 3) * vocabulary.length)];
  const messages: Message[] = Array.from({ length: count }, (_, i) => ({
    role: i % 3 === 0 ? "user" : i % 3 === 1 ? "assistant" : "tool",
    content: Array.from({ length: 40 }, word).join(" "),
    ...(i % 3 === 2 ? { toolCallId: `c${i}`, name: "read_file" } : {}),
  }));
  const index = new HistoryIndex({
    sessionId: "s",
    messages: () => messages,
    archives: () => Promise.resolve([]),
  });
  let start = performance.now();
  await index.search("warmup", { scope: "session" });
  const indexMs = performance.now() - start;
  const times: number[] = [];
  for (let q = 0; q < queries; q++) {
    const query = `${word()} ${word()} ${word()}`;
    start = performance.now();
    await index.search(query, { scope: "session" });
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    indexMs,
    medianQueryMs: times[Math.floor(times.length / 2)],
    p95QueryMs: times[Math.floor(times.length * 0.95)],
  };
}
