/**
 * `deno task bench`: the headless path's costs, measured against the fake LLM server.
 *
 * - `reasonix --version` cold start (median of many spawns)
 * - spawn → first model request (median)
 *
 * Both are measured for the installed form (what `deno task install` writes: a launcher that
 * runs the bundled program), which the targets apply to, and for the source form
 * (`deno task reasonix`) for reference.
 *
 * - a 200-turn scripted session: per-turn harness overhead (the time from the end of one
 *   model response to the arrival of the next request: event handling, tool execution,
 *   request building), the growth from turn 20 to turn 200, and the peak memory
 * - the size of the first request (system prompt + tool schemas)
 * - the harness alone (`harness.ts`): per-turn time at 100…1,600 turns with its fitted growth,
 *   CPU per turn, peak RSS against the live heap, tool time apart, and the interactive UI's
 *   CPU per turn in tmux. `--against [label=]<checkout>` (repeatable) bundles another checkout
 *   (say a `git worktree` of a baseline commit) and measures it in the same run, interleaved;
 *   `--harness-only` prints that table alone.
 *
 * Prints a table with this machine's targets. Timing is never asserted in tests; this
 * script is where it is measured.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep } from "../fake_llm/mod.ts";
import { RUN_FLAGS } from "../../cli/release/compile.ts";
import { buildBundle, bundleEntry, installArgs } from "../../cli/release/bundle.ts";
import { historyLatency, longCompactingSession } from "./context.ts";
import { readLoopSession } from "../support/read_loop.ts";
import { truncationScaling } from "./truncation.ts";
import { historyRows } from "./history.ts";
import { bundleProgram, harnessTable, type Program } from "./harness.ts";
import { uiStreamBench, uiStreamTable } from "./ui_stream.ts";
import { TmuxSession } from "../e2e/tmux.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = join(ROOT, "cli/main.ts");
const CONFIG = join(ROOT, "deno.json");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * How the program is started: the launcher `deno task install` writes (a shell script that
 * runs the bundle), or the TypeScript sources as `deno task reasonix` runs them.
 */
type Form =
  | { kind: "installed"; launcher: string; floorLauncher: string }
  | { kind: "source" };

let form: Form = { kind: "source" };

/** The command line of `reasonix` in the current form. */
function reasonixCommand(args: string[], cwd: string, env: Record<string, string>): Deno.Command {
  const [program, argv] = form.kind === "installed"
    ? [form.launcher, args]
    : [Deno.execPath(), ["run", ...RUN_FLAGS, "--config", CONFIG, MAIN, ...args]];
  return new Deno.Command(program, {
    args: argv,
    cwd,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/** Runs `deno install -g` for the bundle in `dir` under `root`, as `deno task install` does. */
async function installBundle(root: string, dir: string, name: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: installArgs(dir, name, RUN_FLAGS),
    env: { ...Deno.env.toObject(), DENO_INSTALL_ROOT: root },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return join(root, "bin", name);
}

/**
 * Bundles and installs the program into `root` exactly as `deno task install` does, and beside
 * it an empty program laid out and installed the same way: the floor `--version` is compared
 * with.
 */
async function install(root: string): Promise<Form> {
  const bundle = join(root, "bundle");
  await buildBundle(bundle);
  const floor = join(root, "floor");
  await Deno.mkdir(dirname(bundleEntry(floor)), { recursive: true });
  await Deno.copyFile(join(ROOT, "tests/bench/empty.ts"), bundleEntry(floor));
  await Deno.copyFile(join(bundle, "deno.json"), join(floor, "deno.json"));
  return {
    kind: "installed",
    launcher: await installBundle(root, bundle, "reasonix"),
    floorLauncher: await installBundle(root, floor, "reasonix-floor"),
  };
}

async function makeWorkspace(fakeUrl: string): Promise<{ repo: string; home: string }> {
  const repo = await Deno.makeTempDir({ prefix: "reasonix-bench-repo-" });
  const home = await Deno.makeTempDir({ prefix: "reasonix-bench-home-" });
  await Deno.writeTextFile(join(repo, "notes.txt"), "line one\nline two\nline three\n");
  await Deno.writeTextFile(
    join(home, "config.toml"),
    `default_model = "fake"\n[agent]\nmax_turns = 1000\n[[providers]]\nname = "fake"\nkind = "openai"\n` +
      `base_url = "${fakeUrl}"\nmodels = ["fake-model"]\napi_key_env = "BENCH_KEY"\ncontext_window = 1000000\n`,
  );
  return { repo, home };
}

function benchEnv(home: string): Record<string, string> {
  const env = Deno.env.toObject();
  return { ...env, REASONIX_HOME: home, BENCH_KEY: "sk-bench", NO_COLOR: "1" };
}

/**
 * Median cold start of `reasonix --version`, and of an empty Deno program in the same run:
 * the floor no Deno program can go below on this machine. Runs alternate so load affects both.
 */
async function versionColdStart(runs: number): Promise<{ version: number; floor: number }> {
  const version: number[] = [];
  const floor: number[] = [];
  const env = Deno.env.toObject();
  // The same way of starting Deno as the form under test, with an empty program.
  const empty = form.kind === "installed"
    ? new Deno.Command(form.floorLauncher, { env, stdout: "piped", stderr: "piped" })
    : new Deno.Command(Deno.execPath(), {
      args: ["run", ...RUN_FLAGS, "--config", CONFIG, join(ROOT, "tests/bench/empty.ts")],
      cwd: ROOT,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    });
  for (let i = 0; i < runs + 3; i++) {
    let start = performance.now();
    const out = await reasonixCommand(["--version"], ROOT, env).output();
    const elapsed = performance.now() - start;
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    start = performance.now();
    await empty.output();
    const floorElapsed = performance.now() - start;
    if (i >= 3) { // the first runs warm the module cache
      version.push(elapsed);
      floor.push(floorElapsed);
    }
  }
  return { version: median(version), floor: median(floor) };
}

async function timeToFirstRequest(
  runs: number,
): Promise<{ ms: number; firstRequestBytes: number }> {
  const times: number[] = [];
  let firstRequestBytes = 0;
  for (let i = 0; i < runs + 2; i++) {
    let arrived = 0;
    const fake = await startFakeLlm({
      script: (req) => {
        arrived = performance.now();
        firstRequestBytes = req.bodyText.length;
        return { text: "ok" };
      },
    });
    const { repo, home } = await makeWorkspace(fake.url);
    try {
      const start = performance.now();
      const out = await reasonixCommand(["run", "say ok"], repo, benchEnv(home)).output();
      if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
      if (i >= 2) times.push(arrived - start);
    } finally {
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  }
  return { ms: median(times), firstRequestBytes };
}

/**
 * Reads the peak resident set size (VmHWM) of a live process, in bytes (Linux). Through `cat`
 * because Deno reserves direct `/proc` reads for `--allow-all`.
 */
async function peakRss(pid: number): Promise<number | undefined> {
  const out = await new Deno.Command("cat", {
    args: [`/proc/${pid}/status`],
    stdout: "piped",
    stderr: "null",
  }).output();
  const kb = /VmHWM:\s+(\d+) kB/.exec(new TextDecoder().decode(out.stdout))?.[1];
  return kb ? Number(kb) * 1024 : undefined;
}

interface LongSession {
  overheadMs: number[];
  peakBytes?: number;
  lastRequestBytes: number;
  cacheHitShare: number;
}

async function longSession(turns: number): Promise<LongSession> {
  const responseEnd: number[] = [];
  const arrival: number[] = [];
  let lastRequestBytes = 0;
  let shared = 0;
  let total = 0;
  const fake = await startFakeLlm({
    script: (req, index) => {
      arrival[index] = performance.now();
      lastRequestBytes = req.bodyText.length;
      shared += req.sharedPrefixBytes;
      total += req.bodyText.length;
      if (index > 0) responseEnd[index - 1] ??= arrival[index];
      const step: FakeStep = index + 1 < turns
        ? {
          text: `Step ${index + 1}.`,
          chunkBytes: 65536,
          toolCalls: [{
            name: index % 2 ? "read_file" : "grep",
            arguments: index % 2
              ? '{"path":"notes.txt"}'
              : '{"pattern":"line","output_mode":"count"}',
          }],
        }
        : { text: "All steps done.", chunkBytes: 65536 };
      return step;
    },
  });
  const { repo, home } = await makeWorkspace(fake.url);
  try {
    const child = reasonixCommand(["run", "work for a while"], repo, benchEnv(home)).spawn();
    let peak: number | undefined;
    const poll = setInterval(async () => {
      const rss = await peakRss(child.pid);
      if (rss !== undefined) peak = Math.max(peak ?? 0, rss);
    }, 50);
    const out = await child.output();
    clearInterval(poll);
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    // The fake sends its whole response in well under a millisecond after building it; the
    // next request's arrival minus this request's arrival, minus the model time (zero here),
    // is the harness's own time for the turn.
    const overheadMs: number[] = [];
    for (let i = 1; i < arrival.length; i++) overheadMs.push(arrival[i] - arrival[i - 1]);
    return { overheadMs, peakBytes: peak, lastRequestBytes, cacheHitShare: shared / total };
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

function row(name: string, value: string, target: string, ok: boolean | undefined): string {
  const verdict = ok === undefined ? "" : ok ? "ok" : "MISSED";
  return `| ${name.padEnd(40)} | ${value.padStart(12)} | ${target.padEnd(10)} | ${
    verdict.padEnd(6)
  } |`;
}

/** Bundles another checkout with its own `cli/release/bundle.ts` into its `dist/bundle`. */
async function checkoutProgram(spec: string): Promise<Program> {
  const [label, tree] = spec.includes("=") ? spec.split("=", 2) : [spec.split("/").pop()!, spec];
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", join(tree, "deno.json"), join(tree, "cli/release/bundle.ts")],
    cwd: tree,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`bundling ${tree}: ${new TextDecoder().decode(out.stderr)}`);
  return bundleProgram(label, join(tree, "dist/bundle"), RUN_FLAGS);
}

/** The harness-only table for this checkout's bundle and every `--against` checkout. */
async function harnessRows(bundleDir: string): Promise<string[]> {
  const specs = Deno.args.flatMap((arg, i) => arg === "--against" ? [Deno.args[i + 1]] : []);
  const programs = [bundleProgram("this", bundleDir, RUN_FLAGS)];
  for (const spec of specs) programs.push(await checkoutProgram(spec));
  return await harnessTable(programs, { runs: 3, ui: true });
}

if (import.meta.main && Deno.args.includes("--harness-only")) {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-bench-bundle-" });
  await buildBundle(dir);
  console.log("The harness alone (medians of interleaved runs; see tests/bench/harness.ts):\n");
  console.log((await harnessRows(dir)).join("\n"));
  await Deno.remove(dir, { recursive: true });
} else if (import.meta.main) {
  console.log(
    "Measuring… (2-core targets from issue 2; the targets apply to the installed, bundled form)\n",
  );
  const installRoot = await Deno.makeTempDir({ prefix: "reasonix-bench-install-" });
  form = { kind: "source" };
  const sourceVersion = (await versionColdStart(10)).version;
  const sourceFirst = await timeToFirstRequest(6);
  form = await install(installRoot);
  const { version, floor } = await versionColdStart(40);
  const first = await timeToFirstRequest(8);
  const session = await longSession(200);
  const turn20 = mean(session.overheadMs.slice(15, 25));
  const turn200 = mean(session.overheadMs.slice(-10));
  const perTurn = median(session.overheadMs);
  const peakMb = session.peakBytes === undefined ? undefined : session.peakBytes / 2 ** 20;
  const lines = [
    "| measure                                  |        value | target     | result |",
    "|------------------------------------------|--------------|------------|--------|",
    row(
      "`reasonix --version` cold start (median)",
      `${version.toFixed(1)} ms`,
      "≤ 60 ms",
      version <= 60,
    ),
    row(
      "  same, from source (deno task reasonix)",
      `${sourceVersion.toFixed(1)} ms`,
      "",
      undefined,
    ),
    row("empty program installed the same way", `${floor.toFixed(1)} ms`, "", undefined),
    row("`--version` above the floor", `${(version - floor).toFixed(1)} ms`, "", undefined),
    row(
      "spawn → first model request (median)",
      `${first.ms.toFixed(1)} ms`,
      "≤ 250 ms",
      first.ms <= 250,
    ),
    row("  same, from source", `${sourceFirst.ms.toFixed(1)} ms`, "", undefined),
    row(
      "harness overhead per turn (median, 200)",
      `${perTurn.toFixed(2)} ms`,
      "≤ 50 ms",
      perTurn <= 50,
    ),
    row("turn ~20 overhead (mean of 15–25)", `${turn20.toFixed(2)} ms`, "", undefined),
    row(
      "turn ~200 overhead (mean of last 10)",
      `${turn200.toFixed(2)} ms`,
      "≤ 2× t20",
      turn200 <= 2 * turn20,
    ),
    row(
      "peak memory over 200 turns (VmHWM)",
      peakMb === undefined ? "n/a" : `${peakMb.toFixed(1)} MB`,
      "≤ 100 MB",
      peakMb === undefined ? undefined : peakMb <= 100,
    ),
    row(
      "first request size",
      `${(first.firstRequestBytes / 1024).toFixed(1)} KiB`,
      "≤ 32 KiB",
      first.firstRequestBytes <= 32 * 1024,
    ),
    row("request 200 size", `${(session.lastRequestBytes / 1024).toFixed(1)} KiB`, "", undefined),
    row(
      "bytes a prefix cache could serve",
      `${(session.cacheHitShare * 100).toFixed(1)} %`,
      "",
      undefined,
    ),
  ];
  console.log(lines.join("\n"));
  console.log(
    "\n(The rows above time whole turns: the grep tool's `rg` subprocess and the fake " +
      "server's own work included. The harness alone, interleaved with any --against " +
      "checkout:)\n",
  );
  console.log((await harnessRows(join(installRoot, "bundle"))).join("\n"));

  const ctx = await longCompactingSession(300, 24_000);
  const history = await historyLatency(100_000);
  console.log("\nContext management (300 turns, 24k-token window, compact_ratio 0.80):\n");
  console.log([
    "| measure                                  |        value |",
    "|------------------------------------------|--------------|",
    `| ${"status / model turns".padEnd(40)} | ${`${ctx.status} / ${ctx.turns}`.padStart(12)} |`,
    `| ${"requests (summaries included)".padEnd(40)} | ${String(ctx.requests).padStart(12)} |`,
    `| ${"summary requests".padEnd(40)} | ${String(ctx.summaryRequests).padStart(12)} |`,
    `| ${"summary prompt tokens (total)".padEnd(40)} | ${
      String(ctx.summaryPromptTokens).padStart(12)
    } |`,
    `| ${"summary completion tokens (total)".padEnd(40)} | ${
      String(ctx.summaryCompletionTokens).padStart(12)
    } |`,
    `| ${"input a prefix cache could serve".padEnd(40)} | ${
      `${(ctx.prefixShare * 100).toFixed(1)} %`.padStart(12)
    } |`,
    `| ${"cache-hit tokens / prompt tokens".padEnd(40)} | ${
      `${(ctx.cacheHitRatio * 100).toFixed(1)} %`.padStart(12)
    } |`,
    `| ${"BM25: index 100k messages".padEnd(40)} | ${
      `${history.indexMs.toFixed(0)} ms`.padStart(12)
    } |`,
    `| ${"BM25: query, median over 100k".padEnd(40)} | ${
      `${history.medianQueryMs.toFixed(2)} ms`.padStart(12)
    } |`,
    `| ${"BM25: query, p95 over 100k".padEnd(40)} | ${
      `${history.p95QueryMs.toFixed(2)} ms`.padStart(12)
    } |`,
  ].join("\n"));

  // The context issue's sessions: maintenance under pressure, and a summary model that fails.
  const reads = await readLoopSession({
    window: 20_000,
    reads: 40,
    fileBytes: 12_000,
    summaries: "ok",
  });
  const failing = await readLoopSession({
    window: 128_000,
    reads: 110,
    fileBytes: 12_000,
    summaries: "empty",
  });
  const scaling = await truncationScaling();
  const perDoubling = Math.max(...scaling.slice(1).map((r, i) => r.ms / scaling[i].ms));
  console.log("\nContext maintenance under pressure:\n");
  console.log([
    "| measure                                  |        value | target   |",
    "|------------------------------------------|--------------|----------|",
    `| ${"20K window, 40 reads of 12 KB: cacheable".padEnd(40)} | ${
      `${(reads.prefixShare * 100).toFixed(1)} %`.padStart(12)
    } | ≥ 65 %    |`,
    `| ${"128K, 110 reads, empty summaries: paid".padEnd(40)} | ${
      String(failing.summaryRequests).padStart(12)
    } | ≤ 6      |`,
    ...scaling.map((r) =>
      `| ${`truncating transaction, ${r.rounds} rounds`.padEnd(40)} | ${
        `${r.ms.toFixed(2)} ms`.padStart(12)
      } |          |`
    ),
    `| ${"worst growth per doubling".padEnd(40)} | ${
      `×${perDoubling.toFixed(2)}`.padStart(12)
    } | ≤ ×2.2    |`,
  ].join("\n"));
  // Resume with 0 and 1,000 sibling sessions, and history search over a 100k-message archive.
  console.log("\nLookups as a project's history grows:\n");
  console.log(
    (await historyRows(form.kind === "installed" ? [form.launcher] : undefined)).join("\n"),
  );
  // Delegation: harness time of a spawn, and memory while six children work.
  console.log("\nSubagents (in-process host, the fake model in another process):\n");
  // In a process of its own: this one's heap has grown already, which would hide the growth.
  const subagents = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--config", CONFIG, join(ROOT, "tests/bench/subagents.ts")],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  console.log(new TextDecoder().decode(subagents.stdout).trimEnd());
  // The browser front end: a 200-turn session into 5 event-stream clients.
  console.log(
    "\n`reasonix serve`, 200 turns into 5 SSE clients (fake model in another process):\n",
  );
  const serve = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--v8-flags=--expose-gc",
      "--config",
      CONFIG,
      join(ROOT, "tests/bench/serve.ts"),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  console.log(new TextDecoder().decode(serve.stdout).trimEnd());
  // Long single Markdown blocks in the interactive UI, against many small ones (tmux).
  if (await TmuxSession.available()) {
    console.log("\nInteractive UI, long replies streamed at the same pace (100×40 tmux):\n");
    console.log(uiStreamTable(await uiStreamBench(1)));
  }
  await Deno.remove(installRoot, { recursive: true });
}
