/**
 * Lookup costs as a project's history grows, for `deno task bench`:
 *
 * - resuming (`--continue`) with 0 and 1,000 older sibling sessions of 20 turns each: inside
 *   the process (`openSession`) and for the whole process (spawn → exit of
 *   `reasonix run --continue`)
 * - the first `history` call of an agent over a generated 100k-message archive, without a
 *   stored index (it is built) and with one (a new process), and the latency of
 *   common-word and rare-word queries after it
 *
 * Run alone with `deno run --allow-all tests/bench/history.ts` (source form).
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { cpuUsage } from "node:process";
import { fileURLToPath } from "node:url";
import { openSession } from "../../core/store/session_store.ts";
import { sessionsDir } from "../../core/store/sessions.ts";
import type { Message } from "../../providers/types.ts";
import type { ToolContext } from "../../tools/types.ts";
import { RUN_FLAGS } from "../../cli/release/compile.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { openTestAgent } from "../support/host_agent.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The command line that starts `reasonix`, before its arguments. */
export type Launcher = readonly string[];

/** `reasonix` from the sources, as `deno task reasonix` runs it. */
export const SOURCE_LAUNCHER: Launcher = [
  Deno.execPath(),
  "run",
  ...RUN_FLAGS,
  "--config",
  join(ROOT, "deno.json"),
  join(ROOT, "cli/main.ts"),
];

/**
 * Runs `reasonix` with `args` in `cwd` through bash's `time`, so besides the wall time the
 * CPU time of the process and its children is known: the figure other load on the machine
 * disturbs least.
 */
async function timedRun(
  launcher: Launcher,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ wallMs: number; cpuMs: number }> {
  const start = performance.now();
  const out = await new Deno.Command("bash", {
    args: [
      "-c",
      'TIMEFORMAT="%3U %3S"; time "$@" >/dev/null 2>/dev/null',
      "_",
      ...launcher,
      ...args,
    ],
    cwd,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const wallMs = performance.now() - start;
  const [user, sys] = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1)!.split(" ")
    .map(Number);
  if (!out.success || !(user >= 0)) throw new Error(`reasonix ${args.join(" ")} failed`);
  return { wallMs, cpuMs: (user + sys) * 1000 };
}

/**
 * Nanoseconds this thread has run on a CPU (Linux `schedstat`; NaN elsewhere, and without
 * `--allow-all`, which Deno asks for any file under /proc). Unlike wall time it leaves out
 * waiting for a core on a busy machine, and unlike the process's CPU time it leaves out V8's
 * and Deno's helper threads: the cost of the work itself.
 */
function threadRunNs(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]);
  } catch {
    return NaN;
  }
}

/** Wall time, CPU time (this process, all threads) and this thread's run time of `fn`, in ms. */
async function timed(
  fn: () => Promise<unknown>,
): Promise<{ wall: number; cpu: number; thread: number }> {
  const cpu = cpuUsage();
  const ran = threadRunNs();
  const start = performance.now();
  await fn();
  const wall = performance.now() - start;
  const thread = (threadRunNs() - ran) / 1e6;
  const used = cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000, thread };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** A deterministic generator of message text: Zipf-like words, identifiers and some CJK. */
function textSource(seed: number): { words: (n: number) => string; common: string[] } {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const vocabulary = Array.from({ length: 30_000 }, (_, i) => `w${i.toString(36)}`);
  const extras = ["parseHeader", "read_file", "上下文压缩", "session_store", "HTTPServer"];
  const word = () =>
    random() < 0.02
      ? extras[Math.floor(random() * extras.length)]
      : vocabulary[Math.floor(Math.pow(random(), 3) * vocabulary.length)];
  return {
    words: (n) => Array.from({ length: n }, word).join(" "),
    common: vocabulary.slice(0, 10),
  };
}

/** The lines of a transcript holding `messages`, as the writer records them. */
function transcriptText(id: string, workspace: string, created: Date, messages: Message[]): string {
  const lines = [
    JSON.stringify({
      t: "session",
      v: 1,
      meta: { id, created: created.toISOString(), workspace, model: "fake/fake-model" },
    }),
    ...messages.map((m, i) => JSON.stringify({ t: "msg", i, m })),
  ];
  return lines.join("\n") + "\n";
}

/** A session of `turns` turns: request, tool call, tool result, answer. */
function sessionMessages(turns: number, words: (n: number) => string, tag: string): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) {
    const id = `call_${tag}_${t}`;
    out.push({ role: "user", content: `${t === 0 ? `task ${tag}: ` : ""}${words(12)}` });
    out.push({
      role: "assistant",
      content: words(20),
      toolCalls: [{ id, name: "read_file", arguments: JSON.stringify({ path: `src/${tag}.ts` }) }],
    });
    out.push({ role: "tool", toolCallId: id, name: "read_file", content: words(120) });
    out.push({ role: "assistant", content: words(30) });
  }
  return out;
}

/**
 * Writes `count` generated sessions of `turns` turns into `dir`, oldest first, with
 * modification times an hour apart ending `endAgoMs` before now.
 */
export async function writeSessions(opts: {
  dir: string;
  workspace: string;
  count: number;
  turns: number;
  seed: number;
  endAgoMs: number;
}): Promise<string[]> {
  await Deno.mkdir(opts.dir, { recursive: true });
  const { words } = textSource(opts.seed);
  const ids: string[] = [];
  const now = Date.now();
  for (let s = 0; s < opts.count; s++) {
    const id = crypto.randomUUID();
    const when = new Date(now - opts.endAgoMs - (opts.count - s) * 3_600_000);
    const path = join(opts.dir, `${id}.jsonl`);
    await Deno.writeTextFile(
      path,
      transcriptText(id, opts.workspace, when, sessionMessages(opts.turns, words, `s${s}`)),
    );
    await Deno.utime(path, when, when);
    ids.push(id);
  }
  return ids;
}

async function makeProject(fakeUrl: string): Promise<{ repo: string; home: string; dir: string }> {
  const repo = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-bench-hist-" }));
  const home = await Deno.makeTempDir({ prefix: "reasonix-bench-hist-home-" });
  await Deno.writeTextFile(
    join(home, "config.toml"),
    `default_model = "fake"\n[[providers]]\nname = "fake"\nkind = "openai"\n` +
      `base_url = "${fakeUrl}"\nmodels = ["fake-model"]\napi_key_env = "BENCH_KEY"\n` +
      `context_window = 1000000\n`,
  );
  return { repo, home, dir: await sessionsDir(home, repo) };
}

/** What resuming measured, with `siblings` older sessions beside the newest. */
export interface ResumeMeasure {
  siblings: number;
  /** `openSession({ resume: "latest" })`, median. */
  openMs: number;
  /** Spawn → exit of `reasonix run --continue`, median. */
  processMs: number;
  /** CPU time of that process (user + system, children included), median. */
  processCpuMs: number;
}

/** Resume costs with `siblings` older sessions beside the newest, 20 turns each. */
export async function resumeLatency(opts: {
  siblings: number;
  launcher?: Launcher;
  runs?: number;
}): Promise<ResumeMeasure> {
  const [measure] = await resumeLatencies([opts.siblings], opts);
  return measure;
}

/**
 * {@link resumeLatency} for several sibling counts at once, their runs interleaved (one of
 * each in turn), so that load from elsewhere on the machine falls on every count alike
 * instead of inflating whichever happened to run during it.
 */
export async function resumeLatencies(
  siblings: readonly number[],
  opts: { launcher?: Launcher; runs?: number } = {},
): Promise<ResumeMeasure[]> {
  const launcher = opts.launcher ?? SOURCE_LAUNCHER;
  const runs = opts.runs ?? 9;
  const fake = await startFakeLlm({ script: () => ({ text: "ok" }) });
  const projects: { repo: string; home: string; dir: string }[] = [];
  try {
    for (const count of siblings) {
      const project = await makeProject(fake.url);
      projects.push(project);
      const { dir, repo } = project;
      await writeSessions({
        dir,
        workspace: repo,
        count,
        turns: 20,
        seed: 11,
        endAgoMs: 3_600_000,
      });
      await writeSessions({ dir, workspace: repo, count: 1, turns: 20, seed: 12, endAgoMs: 0 });
    }
    const open = projects.map((): number[] => []);
    const whole = projects.map((): number[] => []);
    const cpu = projects.map((): number[] => []);
    for (let i = 0; i < runs + 2; i++) {
      for (const [k, { dir, repo }] of projects.entries()) {
        const start = performance.now();
        const opened = await openSession({ dir, workspace: repo, model: "f/m", resume: "latest" });
        const elapsed = performance.now() - start;
        opened.writer.close();
        if (i >= 2) open[k].push(elapsed);
      }
    }
    for (let i = 0; i < runs + 1; i++) {
      for (const [k, { repo, home }] of projects.entries()) {
        const env = { ...Deno.env.toObject(), REASONIX_HOME: home, BENCH_KEY: "sk", NO_COLOR: "1" };
        const run = await timedRun(launcher, ["run", "--continue", "go on"], repo, env);
        if (i >= 1) {
          whole[k].push(run.wallMs);
          cpu[k].push(run.cpuMs);
        }
      }
    }
    return siblings.map((count, k) => ({
      siblings: count,
      openMs: median(open[k]),
      processMs: median(whole[k]),
      processCpuMs: median(cpu[k]),
    }));
  } finally {
    await fake.close();
    for (const { repo, home } of projects) {
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  }
}

/** What history search over a generated archive measured. */
export interface HistoryMeasure {
  messages: number;
  /** The first `history` call of an agent with no stored index. */
  firstColdMs: number;
  /** The first `history` call of a new agent (as in a new process) with the index stored. */
  firstStoredMs: number;
  /** Its CPU time. */
  firstStoredCpuMs: number;
  commonMedianMs: number;
  commonP95Ms: number;
  /** CPU time of common-word queries, 95th percentile. */
  commonCpuP95Ms: number;
  /** The main thread's run time of common-word queries (no waiting for a core), p95. */
  commonThreadP95Ms: number;
  /** The same, median. */
  commonThreadMedianMs: number;
  rareMedianMs: number;
  rareP95Ms: number;
}

/** `history` latency over `sessions` × 100 generated messages in the workspace's archive. */
export async function historyArchiveLatency(
  opts: { sessions?: number; queries?: number } = {},
): Promise<
  HistoryMeasure
> {
  const sessions = opts.sessions ?? 1000;
  const queries = opts.queries ?? 60;
  const fake = await startFakeLlm({ script: () => ({ text: "ok" }) });
  const { repo, home, dir } = await makeProject(fake.url);
  const ctx = {} as ToolContext;
  const env = { REASONIX_HOME: home, PATH: Deno.env.get("PATH") ?? "", BENCH_KEY: "sk" };
  try {
    await writeSessions({ dir, workspace: repo, count: sessions, turns: 25, seed: 5, endAgoMs: 0 });
    const firstCall = async (): Promise<{ wall: number; cpu: number }> => {
      const agent = await openTestAgent({ cwd: repo, env, flags: {} });
      try {
        const tool = agent.agent.registry.get("history")!;
        return await timed(() => tool.execute({ query: "parseHeader session_store" }, ctx));
      } finally {
        await agent.dispose();
      }
    };
    const firstCold = await firstCall();
    const firstStored = await firstCall();
    const agent = await openTestAgent({ cwd: repo, env, flags: {} });
    const { common, words } = textSource(99);
    const common_: number[] = [];
    const commonCpu: number[] = [];
    const commonThread: number[] = [];
    const rare: number[] = [];
    try {
      const tool = agent.agent.registry.get("history")!;
      await tool.execute({ query: "warm up" }, ctx);
      for (let q = 0; q < queries; q++) {
        const query = `${common[q % 10]} ${common[(q + 3) % 10]}`;
        const t = await timed(() => tool.execute({ query }, ctx));
        common_.push(t.wall);
        commonCpu.push(t.cpu);
        commonThread.push(t.thread);
        const start = performance.now();
        await tool.execute({ query: words(3) }, ctx);
        rare.push(performance.now() - start);
      }
    } finally {
      await agent.dispose();
    }
    return {
      messages: sessions * 100,
      firstColdMs: firstCold.wall,
      firstStoredMs: firstStored.wall,
      firstStoredCpuMs: firstStored.cpu,
      commonMedianMs: median(common_),
      commonP95Ms: percentile(common_, 0.95),
      commonCpuP95Ms: percentile(commonCpu, 0.95),
      commonThreadP95Ms: percentile(commonThread, 0.95),
      commonThreadMedianMs: median(commonThread),
      rareMedianMs: median(rare),
      rareP95Ms: percentile(rare, 0.95),
    };
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/** The rows of the table `deno task bench` prints. */
export async function historyRows(launcher?: Launcher): Promise<string[]> {
  const [none, many] = await resumeLatencies([0, 1000], { launcher });
  const h = await historyArchiveLatency();
  const row = (name: string, value: string, target = "", ok?: boolean) =>
    `| ${name.padEnd(44)} | ${value.padStart(12)} | ${target.padEnd(10)} | ${
      (ok === undefined ? "" : ok ? "ok" : "MISSED").padEnd(6)
    } |`;
  const ratio = many.processMs / none.processMs;
  const cpuRatio = many.processCpuMs / none.processCpuMs;
  return [
    "| measure                                      |        value | target     | result |",
    "|----------------------------------------------|--------------|------------|--------|",
    row("openSession latest, 0 siblings", `${none.openMs.toFixed(2)} ms`),
    row("openSession latest, 1,000 siblings", `${many.openMs.toFixed(2)} ms`),
    row("`run --continue` process, 0 siblings", `${none.processMs.toFixed(1)} ms`),
    row("`run --continue` process, 1,000 siblings", `${many.processMs.toFixed(1)} ms`),
    row("  1,000 siblings / 0 siblings (median)", `×${ratio.toFixed(2)}`, "≤ ×1.2", ratio <= 1.2),
    row("  CPU time, 0 siblings", `${none.processCpuMs.toFixed(1)} ms`),
    row("  CPU time, 1,000 siblings", `${many.processCpuMs.toFixed(1)} ms`),
    row("  CPU 1,000 / 0 siblings", `×${cpuRatio.toFixed(2)}`, "≤ ×1.2", cpuRatio <= 1.2),
    row(
      `first history, ${h.messages / 1000}k msgs, no index`,
      `${h.firstColdMs.toFixed(0)} ms`,
    ),
    row(
      `first history, ${h.messages / 1000}k msgs, index stored`,
      `${h.firstStoredMs.toFixed(0)} ms`,
      "≤ 500 ms",
      h.firstStoredMs <= 500,
    ),
    row("  its CPU time", `${h.firstStoredCpuMs.toFixed(0)} ms`),
    row("history common-word query, median", `${h.commonMedianMs.toFixed(2)} ms`),
    row(
      "history common-word query, p95",
      `${h.commonP95Ms.toFixed(2)} ms`,
      "≤ 10 ms",
      h.commonP95Ms <= 10,
    ),
    row("  CPU time, p95", `${h.commonCpuP95Ms.toFixed(2)} ms`),
    row(
      "  main thread's run time, median / p95",
      `${h.commonThreadMedianMs.toFixed(2)} / ${h.commonThreadP95Ms.toFixed(2)}`,
    ),
    row("history rare-word query, median", `${h.rareMedianMs.toFixed(2)} ms`),
    row("history rare-word query, p95", `${h.rareP95Ms.toFixed(2)} ms`),
  ];
}

if (import.meta.main && Deno.args.includes("--resume-only")) {
  const [none, many] = await resumeLatencies([0, 1000]);
  console.log(JSON.stringify({ none, many }));
} else if (import.meta.main) {
  console.log((await historyRows()).join("\n"));
}
