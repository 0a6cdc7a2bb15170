/**
 * The read-loop sessions of the context issue: the model reads one large file again and again
 * under a small window, so every maintenance step (prune, summary, truncation) runs many
 * times. Measures how much of all request bytes a prefix cache could serve (the longest prefix
 * each request shares with any earlier request of the session, summaries included) and how
 * many summary attempts were paid for.
 *
 * @module
 */
import { join } from "node:path";
import { openTestAgent } from "./host_agent.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { RecordedRequest } from "../fake_llm/mod.ts";

/** What a read-loop session measured. */
export interface ReadLoopMeasure {
  status: string;
  requests: number;
  /** Summary requests sent (paid attempts, successful or not). */
  summaryRequests: number;
  /** Bytes of each request that an earlier request of the session began with, over all bytes. */
  prefixShare: number;
  /** The same share for normal (non-summary) requests only. */
  normalPrefixShare: number;
  /** Compaction events the run reported, by phase. */
  phases: Record<string, number>;
  /** Every recorded request, for tests that check the prefix rule on each. */
  bodies: string[];
  /** Requests the fake rejected as too long. */
  rejected: number;
  /** The run's error, if it failed. */
  error?: string;
  /** The fake server's port. */
  port: number;
  /** Request bytes and cached bytes as the session's cache meter counted them. */
  meter: { bytes: number; cached: number };
  /** The same as the fake server saw them (cached: the prefix shared with the previous body). */
  wire: { bytes: number; cached: number };
}

/** Options of a read-loop session. */
export interface ReadLoopOptions {
  window: number;
  reads: number;
  /** Bytes of the file read each time. */
  fileBytes: number;
  /** `ok`: summaries succeed; `empty`: the summary model returns nothing. */
  summaries: "ok" | "empty";
  /** Extra `[agent]` TOML lines. */
  agent?: string;
  /**
   * The provider's real window, below the configured one: bodies over this many tokens (at
   * the fake's 4 bytes per token) get the 400 an OpenAI-compatible server sends.
   */
  realLimit?: number;
  /** A Reasonix home to use and keep (for a second session on it); default a fresh one. */
  home?: string;
  /** The fake server's port (a second session on the same endpoint); default any free one. */
  port?: number;
}

/** Whether a request body is a compaction summary request (its last message asks for one). */
export function isSummaryRequestBody(body: string): boolean {
  return body.includes(',{"role":"user","content":"<compaction-request>');
}

function isSummaryRequest(req: RecordedRequest): boolean {
  return isSummaryRequestBody(req.bodyText);
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** For each body, the longest prefix it shares with any earlier body. */
export function sharedWithEarlier(bodies: readonly string[]): number[] {
  return bodies.map((body, i) => {
    let best = 0;
    for (let j = 0; j < i; j++) best = Math.max(best, commonPrefix(bodies[j], body));
    return best;
  });
}

/** Runs one read-loop session against the fake LLM server. */
export async function readLoopSession(o: ReadLoopOptions): Promise<ReadLoopMeasure> {
  let normal = 0;
  let rejectedCount = 0;
  const fake = await startFakeLlm({
    port: o.port,
    script: (req) => {
      const tokens = Math.ceil(req.bodyText.length / 4);
      if (o.realLimit !== undefined && tokens > o.realLimit) {
        rejectedCount++;
        return {
          status: 400,
          body: {
            error: {
              message: `This model's maximum context length is ${o.realLimit} tokens. ` +
                `However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
              type: "invalid_request_error",
              code: "context_length_exceeded",
            },
          },
        };
      }
      if (isSummaryRequest(req)) {
        return o.summaries === "ok"
          ? { text: `Checkpoint: data.txt was read ${normal} times; keep reading.` }
          : { text: "" };
      }
      normal++;
      return normal <= o.reads
        ? {
          text: `Read ${normal}.`,
          toolCalls: [{ name: "read_file", arguments: '{"path":"data.txt"}' }],
        }
        : { text: "Done." };
    },
  });
  const repo = await Deno.makeTempDir({ prefix: "reasonix-readloop-" });
  const home = o.home ?? await Deno.makeTempDir({ prefix: "reasonix-readloop-home-" });
  try {
    const line = (i: number) => `${String(i).padStart(5, "0")} ${"abcdefghij".repeat(6)}`;
    const lines: string[] = [];
    for (let i = 0, n = 0; n < o.fileBytes; i++) {
      lines.push(line(i));
      n += line(i).length + 1;
    }
    await Deno.writeTextFile(join(repo, "data.txt"), lines.join("\n"));
    await Deno.writeTextFile(
      join(home, "config.toml"),
      `default_model = "fake"\n[agent]\nmax_turns = ${o.reads + 10}\n${o.agent ?? ""}\n` +
        `[[providers]]\nname = "fake"\nkind = "openai"\nbase_url = "${fake.url}"\n` +
        `models = ["m"]\ncontext_window = ${o.window}\n`,
    );
    const runtime = await openTestAgent({
      cwd: repo,
      env: { REASONIX_HOME: home, PATH: Deno.env.get("PATH") },
      flags: {},
    });
    let done: Extract<AgentEvent, { type: "done" }> | undefined;
    const phases: Record<string, number> = {};
    try {
      for await (
        const e of runtime.agent.run({ text: "read data.txt again and again" }, {
          signal: new AbortController().signal,
        })
      ) {
        if (e.type === "done") done = e;
        if (e.type === "compaction") phases[e.report.phase] = (phases[e.report.phase] ?? 0) + 1;
      }
    } finally {
      await runtime.dispose();
    }
    const accepted = fake.requests.filter((r) =>
      o.realLimit === undefined || Math.ceil(r.bodyText.length / 4) <= o.realLimit
    );
    const bodies = accepted.map((r) => r.bodyText);
    const shared = sharedWithEarlier(bodies);
    const normalIdx = accepted.flatMap((r, i) => isSummaryRequest(r) ? [] : [i]);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return {
      status: done?.status ?? "none",
      requests: bodies.length,
      summaryRequests: fake.requests.filter(isSummaryRequest).length,
      prefixShare: sum(shared) / sum(bodies.map((b) => b.length)),
      normalPrefixShare: sum(normalIdx.map((i) => shared[i])) /
        sum(normalIdx.map((i) => bodies[i].length)),
      phases,
      bodies,
      rejected: rejectedCount,
      port: Number(new URL(fake.url).port),
      meter: { bytes: done?.usage.requestBytes ?? 0, cached: done?.usage.cachedBytes ?? 0 },
      wire: {
        bytes: fake.requests.reduce((n, r) => n + new TextEncoder().encode(r.bodyText).length, 0),
        cached: fake.requests.reduce((n, r) => n + r.sharedPrefixBytes, 0),
      },
      ...(done?.error ? { error: done.error.message } : {}),
    };
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    if (!o.home) await Deno.remove(home, { recursive: true });
  }
}

if (import.meta.main) {
  const [window = "20000", reads = "40", bytes = "12000", summaries = "ok"] = Deno.args;
  const m = await readLoopSession({
    window: Number(window),
    reads: Number(reads),
    fileBytes: Number(bytes),
    summaries: summaries as "ok" | "empty",
  });
  const { bodies: _b, ...rest } = m;
  console.log(JSON.stringify(rest));
}
