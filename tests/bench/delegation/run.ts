/**
 * The delegation experiment (spec §3.17): every corpus task N times per arm — `--ablate none`
 * against `--ablate subagent`, the same model — reading only what `reasonix run --json`
 * reports from host records (tokens, wall time, `false_completions`, `subagent_runs`) and the
 * repository afterwards. Prints per arm the median and spread, and flags differences between
 * the arms that do not exceed the measured noise.
 *
 *   deno run --allow-all tests/bench/delegation/run.ts [--runs N] [--task NAME] [--real [--model M]]
 *
 * Without `--real` the fake LLM server plays a model that delegates one branch per child when
 * `task` is offered and does the work itself otherwise (the CI smoke run). With `--real` the
 * runs use your configuration and key: that is the experiment the spec describes.
 *
 * @module
 */
import { join } from "node:path";
import {
  type FakeStep,
  fakeToolCall,
  type RecordedRequest,
  startFakeLlm,
} from "../../fake_llm/mod.ts";
import { cliEnv, makeHome, makeRepo, REASONIX_TASK } from "../../e2e/support.ts";
import { CORPUS, type DelegationTask } from "./corpus.ts";

/** The arms: the value given to `--ablate`. */
export type Arm = "none" | "subagent";

/** One run's numbers, all from `run --json` and the repository. */
export interface Sample {
  tokens: number;
  wallMs: number;
  falseCompletions: number;
  subagentRuns: number;
  ok: boolean;
}

/** Median and spread (max − min) of one measure. */
export interface Stat {
  median: number;
  spread: number;
}

/** One table row: a task under one arm. */
export interface ArmRow {
  task: string;
  arm: Arm;
  n: number;
  ok: number;
  tokens: Stat;
  wallMs: Stat;
  falseCompletions: Stat;
  subagentRuns: Stat;
}

interface Msg {
  role: string;
  content: string | null;
}

const messagesOf = (req: RecordedRequest) => (req.body as { messages: Msg[] }).messages;
const systemOf = (req: RecordedRequest) =>
  messagesOf(req).find((m) => m.role === "system")?.content ?? "";
const firstUserOf = (req: RecordedRequest) =>
  messagesOf(req).find((m) => m.role === "user")?.content ?? "";
const toolsOf = (req: RecordedRequest) =>
  ((req.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) =>
    t.function.name
  );
/** Assistant turns since the last user message. */
const stepOf = (req: RecordedRequest) => {
  const ms = messagesOf(req);
  return ms.slice(ms.map((m) => m.role).lastIndexOf("user") + 1)
    .filter((m) => m.role === "assistant").length;
};

/** The scripted model of a task: delegates when it can, works alone when it cannot. */
export function fakeModel(task: DelegationTask): (req: RecordedRequest) => FakeStep {
  return (req) => {
    const step = stepOf(req);
    if (/subagent/.test(systemOf(req))) {
      const first = firstUserOf(req);
      const branch = task.branches.find((b) => first.includes(`${b.name}:`));
      if (!branch) return { text: "nothing to do" };
      const writes = Object.entries(branch.writes ?? {});
      if (step === 0) {
        return {
          toolCalls: [
            ...(branch.reads ?? []).map((path) => fakeToolCall("read_file", { path })),
            ...writes.map(([path, content]) => fakeToolCall("write_file", { path, content })),
          ],
        };
      }
      if (step === 1 && !branch.read_only) {
        return {
          toolCalls: [fakeToolCall("complete_subtask", {
            status: "complete",
            summary: `${branch.name} done`,
            acceptance_criteria: [{
              criterion: branch.prompt,
              kind: "diff",
              paths: writes.map(([p]) => p),
            }],
          })],
        };
      }
      return { text: `${branch.name} done` };
    }
    if (toolsOf(req).includes("task")) {
      if (step > 0) return { text: "done" };
      return {
        toolCalls: [fakeToolCall("task", {
          tasks: task.branches.map((b) => ({
            id: b.name,
            prompt: b.prompt,
            ...(b.read_only ? { read_only: true } : {}),
            ...(b.write_paths ? { write_paths: b.write_paths } : {}),
            ...(b.depends_on ? { depends_on: b.depends_on } : {}),
          })),
        })],
      };
    }
    const reads = task.branches.flatMap((b) => b.reads ?? []);
    const writes = task.branches.flatMap((b) => Object.entries(b.writes ?? {}));
    const phases = [
      ...(reads.length ? [reads.map((path) => fakeToolCall("read_file", { path }))] : []),
      writes.map(([path, content]) => fakeToolCall("write_file", { path, content })),
    ];
    return step < phases.length ? { toolCalls: phases[step] } : { text: "done" };
  };
}

function stat(values: readonly number[]): Stat {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length === 0
    ? 0
    : sorted.length % 2
    ? sorted[mid]
    : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, spread: sorted.length ? sorted.at(-1)! - sorted[0] : 0 };
}

/** Aggregates the samples of one task and arm. */
export function armRow(task: string, arm: Arm, samples: readonly Sample[]): ArmRow {
  return {
    task,
    arm,
    n: samples.length,
    ok: samples.filter((s) => s.ok).length,
    tokens: stat(samples.map((s) => s.tokens)),
    wallMs: stat(samples.map((s) => s.wallMs)),
    falseCompletions: stat(samples.map((s) => s.falseCompletions)),
    subagentRuns: stat(samples.map((s) => s.subagentRuns)),
  };
}

/**
 * How two arms' medians compare against the noise each arm shows: a difference no larger than
 * the larger spread is noise; with one run per arm the noise is unmeasured.
 */
export function verdict(a: Stat, b: Stat, n: number): string {
  if (n < 2) return "noise unmeasured (n=1)";
  const diff = Math.abs(a.median - b.median);
  return diff <= Math.max(a.spread, b.spread) ? "within noise" : "beyond noise";
}

function fmt(s: Stat, unit = ""): string {
  return `${Math.round(s.median)}${unit} ±${Math.round(s.spread / 2)}`;
}

/** The Markdown table of the rows, with one comparison line per task. */
export function formatTable(rows: readonly ArmRow[]): string {
  const lines = [
    "| task | arm | n | ok | tokens | wall | false_completions | subagent_runs |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.task} | ${r.arm} | ${r.n} | ${r.ok} | ${fmt(r.tokens)} | ${fmt(r.wallMs, " ms")} | ${
        fmt(r.falseCompletions)
      } | ${fmt(r.subagentRuns)} |`,
    );
  }
  lines.push("", "median ±half the spread (max − min) per arm.", "");
  for (const task of [...new Set(rows.map((r) => r.task))]) {
    const none = rows.find((r) => r.task === task && r.arm === "none");
    const ablated = rows.find((r) => r.task === task && r.arm === "subagent");
    if (!none || !ablated) continue;
    const n = Math.min(none.n, ablated.n);
    const ratio = ablated.tokens.median === 0
      ? "n/a"
      : `${(none.tokens.median / ablated.tokens.median).toFixed(2)}x`;
    lines.push(
      `${task}: tokens none/subagent ${ratio} (${verdict(none.tokens, ablated.tokens, n)}); ` +
        `wall ${verdict(none.wallMs, ablated.wallMs, n)}; ` +
        `false_completions ${verdict(none.falseCompletions, ablated.falseCompletions, n)}`,
    );
  }
  return lines.join("\n");
}

/** How to run the experiment. */
export interface BenchOptions {
  runs: number;
  arms?: readonly Arm[];
  /** Task names to run (default: the whole corpus). */
  tasks?: readonly string[];
  /** Use the configured model and key instead of the fake server. */
  real?: boolean;
  model?: string;
  /** Each finished run, for progress output. */
  onSample?(task: string, arm: Arm, sample: Sample): void;
}

async function runOnce(
  task: DelegationTask,
  arm: Arm,
  opts: BenchOptions,
): Promise<Sample> {
  const repo = await makeRepo(task.files);
  const fake = opts.real ? undefined : await startFakeLlm({ script: fakeModel(task) });
  const home = fake ? await makeHome(fake.url) : undefined;
  try {
    const [program, ...args] = REASONIX_TASK;
    const started = performance.now();
    const out = await new Deno.Command(program, {
      args: [
        ...args,
        "run",
        "--json",
        "--ablate",
        arm,
        "--permission-mode",
        "auto",
        ...(opts.model ? ["-m", opts.model] : []),
        task.prompt,
      ],
      cwd: repo,
      ...(home ? { clearEnv: true, env: cliEnv(home) } : {}),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const wallMs = performance.now() - started;
    const text = new TextDecoder().decode(out.stdout).trim();
    let summary: Record<string, unknown> = {};
    try {
      summary = JSON.parse(text.split("\n").at(-1) ?? "{}");
    } catch {
      // A run that printed no summary counts as not done, with nothing measured.
    }
    const tokens = summary.tokens as { prompt?: number; completion?: number } | undefined;
    const read = (path: string) => {
      try {
        return Deno.readTextFileSync(join(repo, path));
      } catch {
        return undefined;
      }
    };
    return {
      tokens: (tokens?.prompt ?? 0) + (tokens?.completion ?? 0),
      wallMs: typeof summary.duration_ms === "number" ? summary.duration_ms : wallMs,
      falseCompletions: Number(summary.false_completions ?? 0),
      subagentRuns: Number(summary.subagent_runs ?? 0),
      ok: summary.status === "completed" && task.check(read),
    };
  } finally {
    await fake?.close();
    await Deno.remove(repo, { recursive: true });
    if (home) await Deno.remove(home, { recursive: true });
  }
}

/** Runs the experiment; the rows of the table. Arms alternate so drift hits both alike. */
export async function runDelegationBench(opts: BenchOptions): Promise<ArmRow[]> {
  const arms = opts.arms ?? ["none", "subagent"];
  const tasks = CORPUS.filter((t) => !opts.tasks || opts.tasks.includes(t.name));
  const rows: ArmRow[] = [];
  for (const task of tasks) {
    const samples = new Map<Arm, Sample[]>(arms.map((a) => [a, []]));
    for (let i = 0; i < opts.runs; i++) {
      for (const arm of arms) {
        const sample = await runOnce(task, arm, opts);
        samples.get(arm)!.push(sample);
        opts.onSample?.(task.name, arm, sample);
      }
    }
    for (const arm of arms) rows.push(armRow(task.name, arm, samples.get(arm)!));
  }
  return rows;
}

if (import.meta.main) {
  const argv = [...Deno.args];
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const runs = Number(value("--runs") ?? 3);
  const task = value("--task");
  const rows = await runDelegationBench({
    runs,
    real: argv.includes("--real"),
    model: value("--model"),
    ...(task ? { tasks: task.split(",") } : {}),
    onSample: (t, arm, s) =>
      console.error(`${t} ${arm}: ${s.tokens} tokens, ${Math.round(s.wallMs)} ms, ok=${s.ok}`),
  });
  console.log(formatTable(rows));
}
