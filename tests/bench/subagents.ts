/**
 * What delegation costs the harness, for `deno task bench` (issue: subagents):
 *
 * - spawning a child: the `task` tool's time for a child that answers in one request, minus
 *   that request's own round trip (measured the same way for the parent in the same run)
 * - six concurrent read-only children of 50 turns each (a `read_file` per turn): the parent
 *   process's RSS growth, sampled while they run
 *
 * Run alone with `deno run --allow-all tests/bench/subagents.ts`; it measures in a process
 * started with the launcher's V8 flags, as a user's would run.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { openHost } from "../../cli/host.ts";
import { RUN_FLAGS } from "../../cli/release/compile.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import { type FakeStep, type RecordedRequest, startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo } from "../e2e/support.ts";

interface Msg {
  role: string;
  content: string | null;
}

const messagesOf = (req: RecordedRequest) => (req.body as { messages: Msg[] }).messages;
const systemOf = (req: RecordedRequest) =>
  messagesOf(req).find((m) => m.role === "system")?.content ?? "";
const isChild = (req: RecordedRequest) => /subagent/.test(systemOf(req));
const toolsSince = (req: RecordedRequest) => {
  const ms = messagesOf(req);
  const lastUser = ms.map((m) => m.role).lastIndexOf("user");
  return ms.slice(lastUser + 1).filter((m) => m.role === "tool").length;
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The rows of the table. */
export interface SubagentBench {
  /** Median harness time of one spawn beyond its model request, ms. */
  spawnMs: number;
  /** Median parent round trip (request start → its usage), ms. */
  roundTripMs: number;
  /** Peak RSS growth of the parent process while six children ran 50 turns each, MB. */
  growthMb: number;
  /** Of it, buffers outside the JS heap (request bodies awaiting collection), MB. */
  externalMb: number;
  /** Requests the six children made. */
  childRequests: number;
}

const TURNS = 50;

/** The fake model: stateless, keyed on the request (parent or child, and the task). */
function script(req: RecordedRequest): FakeStep {
  const ms = messagesOf(req);
  const firstUser = ms.find((m) => m.role === "user")?.content ?? "";
  if (isChild(req)) {
    if (firstUser.includes("one: answer ok")) return { text: "ok" };
    return toolsSince(req) < TURNS
      ? { toolCalls: [{ name: "read_file", arguments: JSON.stringify({ path: "a.ts" }) }] }
      : { text: "read enough" };
  }
  if (toolsSince(req) > 0) return { text: "done" };
  const tasks = Array.from(
    { length: 6 },
    (_, i) => ({ prompt: `reader ${i}: read a.ts`, read_only: true }),
  );
  return { toolCalls: [{ name: "task", arguments: JSON.stringify({ tasks }) }] };
}

/** Starts the fake model in another process, so its memory is not the parent's. */
async function serve(): Promise<{ url: string; close(): Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL(import.meta.url).pathname, "--serve"],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the fake model did not start");
    buffered += value;
  }
  reader.releaseLock();
  return {
    url: buffered.split("\n")[0].trim(),
    async close() {
      child.kill();
      await child.status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}

/** Measures spawn cost and memory growth through the real host. */
export async function subagentBench(opts: { spawns?: number } = {}): Promise<SubagentBench> {
  const spawns = opts.spawns ?? 20;
  const fake = await serve();
  const repo = await makeRepo({ "a.ts": "export const a = 1;\n".repeat(200) });
  const home = await makeHome(fake.url);
  const host = await openHost({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-bench", PATH: Deno.env.get("PATH") },
  });
  const agent = await host.createAgent({ transcript: "ephemeral" });
  const overheads: number[] = [];
  const trips: number[] = [];
  try {
    // Harness time of a spawn: from the call to the child's first request, plus from the end
    // of its one response to the result.
    for (let i = 0; i < spawns; i++) {
      const t0 = performance.now();
      let requested = 0;
      let answered = 0;
      const it = host.runSubagent({
        task: "one: answer ok",
        readOnly: true,
        ephemeral: true,
        parent: { depth: 0 },
      }, { signal: AbortSignal.timeout(60_000) });
      while (true) {
        const step = await it.next();
        if (step.done) break;
        const event = step.value as AgentEvent;
        if (event.type === "request_start") requested = performance.now();
        if (event.type === "usage") answered = performance.now();
      }
      const end = performance.now();
      overheads.push((requested - t0) + (end - answered));
      trips.push(answered - requested);
    }
    const before = Deno.memoryUsage().rss;
    let peak = before;
    const externalBefore = Deno.memoryUsage().external;
    let externalPeak = externalBefore;
    const sampler = setInterval(() => {
      const m = Deno.memoryUsage();
      peak = Math.max(peak, m.rss);
      externalPeak = Math.max(externalPeak, m.external);
    }, 5);
    let childRequests = 0;
    for await (
      const e of agent.run({ text: "delegate six" }, { signal: AbortSignal.timeout(600_000) })
    ) {
      peak = Math.max(peak, Deno.memoryUsage().rss);
      // One per tool call a child started (its results and usage ride progress too).
      if (e.type === "tool_progress" && (e.detail?.event as AgentEvent)?.type === "tool_start") {
        childRequests++;
      }
    }
    clearInterval(sampler);
    return {
      spawnMs: median(overheads),
      roundTripMs: median(trips),
      growthMb: (peak - before) / 1e6,
      externalMb: (externalPeak - externalBefore) / 1e6,
      childRequests,
    };
  } finally {
    await agent.close();
    await host.close();
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/** The table `deno task bench` prints. */
export function subagentTable(b: SubagentBench): string {
  return [
    "| measure                                        |      value | target    |",
    "|------------------------------------------------|------------|-----------|",
    `| ${"spawn a child, beyond its model request".padEnd(46)} | ${
      `${b.spawnMs.toFixed(1)} ms`.padStart(10)
    } | ≤ 20 ms   |`,
    `| ${"(one model round trip, for reference)".padEnd(46)} | ${
      `${b.roundTripMs.toFixed(1)} ms`.padStart(10)
    } |           |`,
    `| ${`6 read-only children × 50 turns: RSS growth`.padEnd(46)} | ${
      `${b.growthMb.toFixed(1)} MB`.padStart(10)
    } | < 60 MB   |`,
    `| ${"(of it, buffers outside the JS heap)".padEnd(46)} | ${
      `${b.externalMb.toFixed(1)} MB`.padStart(10)
    } |           |`,
    `| ${"(their tool calls)".padEnd(46)} | ${String(b.childRequests).padStart(10)} |           |`,
  ].join("\n");
}

/** The launcher's V8 flags, which a user's process runs with (`RUN_FLAGS`). */
export const LAUNCHER_V8_FLAGS: string = RUN_FLAGS.find((f) => f.startsWith("--v8-flags="))!;

if (import.meta.main) {
  if (Deno.args.includes("--serve")) {
    const fake = await startFakeLlm({ script, keepAlive: true });
    console.log(fake.url);
  } else if (Deno.args.includes("--as-launched")) {
    console.log(subagentTable(await subagentBench()));
  } else {
    // The parent's memory depends on V8's flags (the young generation's size, and the `gc`
    // that lets `providers/http.ts` free each sent body's copy early): measure it with the
    // launcher's, not those of whatever `deno run` started this file.
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        LAUNCHER_V8_FLAGS,
        "--config",
        fileURLToPath(new URL("../../deno.json", import.meta.url)),
        fileURLToPath(import.meta.url),
        "--as-launched",
      ],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    Deno.exit(out.code);
  }
}
