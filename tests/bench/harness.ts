/**
 * The harness's own cost per turn, measured so that nothing else is counted.
 *
 * A long scripted session runs against a timing server that speaks the fake LLM's OpenAI wire
 * format (its frames come from `testing/fake_llm/openai_format.ts`) over one keep-alive
 * connection. The server notes when the last byte of a request arrives and when the last byte
 * of its answer is written; the harness's time for a turn is the gap between the answer to one
 * request and the arrival of the next. The server's own work (reading, framing, writing) falls
 * outside that gap, the body is never parsed, and the tool of every turn is `read_file` of a
 * three-line file, which runs in the process. The `rg` subprocess of `grep` is measured apart,
 * as tool time.
 *
 * The same session reports the process's peak RSS (`/usr/bin/time`) against its live heap (the
 * largest heap left after a full mark-compact, from `--trace-gc`) and the largest request, and
 * its CPU per turn. {@link uiSession} runs the interactive UI in tmux and samples its CPU per
 * turn around two turns.
 *
 * @module
 */
import { join } from "node:path";
import { openAiFormat } from "../../testing/fake_llm/openai_format.ts";
import { concat, encodeChunk, encodeHead, LAST_CHUNK } from "../../testing/fake_llm/http1.ts";
import type { CompletionStep, RecordedRequest } from "../../testing/fake_llm/types.ts";
import { sharedPrefix } from "../../core/context/cache_meter.ts";
import { TmuxSession } from "../e2e/tmux.ts";

/** How a built program is started: a bundle directory run with the launcher's flags. */
export interface Program {
  /** Shown in the tables. */
  label: string;
  /**
   * The `deno run` arguments before the program's own (flags, config, entry); `preload` is a
   * module run before the entry.
   */
  argv: (extraV8?: string, preload?: string) => string[];
}

/** One request as the timing server saw it. */
interface Exchange {
  /** `performance.now()` when the last byte of the request arrived. */
  arrived: number;
  /** When the last byte of the answer was written. */
  answered: number;
  bytes: number;
  sharedBytes: number;
}

/** The step the timing server answers request `index` with; undefined answers a final text. */
type Step = (index: number) => CompletionStep;

interface TimingServer {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/**
 * Reads `Content-Length` framed requests into one growing buffer (amortized, no re-copying of
 * what arrived before) and answers each with the step's SSE frames.
 */
function startTimingServer(
  step: Step,
  opts: { onRequest?: (index: number) => Promise<void> | void } = {},
): TimingServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const exchanges: Exchange[] = [];
  const conns = new Set<Deno.Conn>();
  let previous: Uint8Array | undefined;
  let index = 0;
  const serve = async (conn: Deno.Conn): Promise<void> => {
    let buf = new Uint8Array(1 << 16);
    let len = 0;
    let scanned = 0;
    const more = async (): Promise<boolean> => {
      if (len === buf.byteLength) {
        const grown = new Uint8Array(buf.byteLength * 2);
        grown.set(buf.subarray(0, len));
        buf = grown;
      }
      const n = await conn.read(buf.subarray(len));
      if (n === null) return false;
      len += n;
      return true;
    };
    try {
      while (true) {
        let headEnd = -1;
        while (headEnd < 0) {
          for (let i = Math.max(0, scanned - 3); i + 3 < len; i++) {
            if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) {
              headEnd = i;
              break;
            }
          }
          if (headEnd >= 0) break;
          scanned = len;
          if (!(await more())) return;
        }
        const head = new TextDecoder().decode(buf.subarray(0, headEnd));
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
        if (!Number.isFinite(length)) throw new Error(`no content-length in ${head}`);
        const total = headEnd + 4 + length;
        while (len < total) {
          if (len === buf.byteLength) {
            const grown = new Uint8Array(Math.max(buf.byteLength * 2, total));
            grown.set(buf.subarray(0, len));
            buf = grown;
          }
          const n = await conn.read(buf.subarray(len));
          if (n === null) return;
          len += n;
        }
        const arrived = performance.now();
        const body = buf.slice(headEnd + 4, total);
        buf.copyWithin(0, total, len);
        len -= total;
        scanned = 0;
        const i = index++;
        await opts.onRequest?.(i);
        await conn.write(answer(step(i), i, length));
        exchanges.push({ arrived, answered: performance.now(), bytes: length, sharedBytes: 0 });
        // After the answer, while the harness works: outside every measured gap.
        exchanges[i].sharedBytes = previous ? sharedPrefix(previous, body) : 0;
        previous = body;
      }
    } catch {
      // The client went away.
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch {
        // Already closed.
      }
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        conns.add(conn);
        serve(conn);
      }
    } catch {
      // Closed.
    }
  })();
  const addr = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}/v1`,
    exchanges,
    async close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed.
        }
      }
      await accepting;
    },
  };
}

/** The fake's OpenAI SSE answer for one step, with a usage that follows the body's size. */
function answer(step: CompletionStep, index: number, bodyBytes: number): Uint8Array {
  const req: RecordedRequest = {
    method: "POST",
    path: "/v1/chat/completions",
    headers: {},
    bodyText: "",
    body: { model: "fake-model", stream_options: { include_usage: true } },
    sharedPrefixBytes: 0,
    time: Date.now(),
  };
  const prompt = Math.ceil(bodyBytes / 4);
  const usage = {
    prompt_tokens: prompt,
    total_tokens: prompt + 10,
    prompt_cache_hit_tokens: prompt,
    prompt_cache_miss_tokens: 0,
    prompt_tokens_details: { cached_tokens: prompt },
    ...step.usage,
  };
  const frames = openAiFormat.frames({ ...step, usage }, req, index + 1);
  return concat([
    encodeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "transfer-encoding": "chunked",
      "connection": "keep-alive",
      "cache-control": "no-cache",
    }),
    ...frames.map((f) => encodeChunk(encoder.encode(f))),
    LAST_CHUNK,
  ]);
}

/** A workspace and a configuration pointing at `url`, for `turns` model turns. */
export async function benchWorkspace(
  url: string,
  turns: number,
): Promise<{ repo: string; home: string; env: Record<string, string>; dispose(): Promise<void> }> {
  const repo = await Deno.makeTempDir({ prefix: "reasonix-bench-repo-" });
  const home = await Deno.makeTempDir({ prefix: "reasonix-bench-home-" });
  await Deno.writeTextFile(join(repo, "notes.txt"), "line one\nline two\nline three\n");
  await Deno.writeTextFile(
    join(home, "config.toml"),
    `default_model = "fake"\n[agent]\nmax_turns = ${turns + 10}\n[[providers]]\n` +
      `name = "fake"\nkind = "openai"\nbase_url = "${url}"\nmodels = ["fake-model"]\n` +
      `api_key_env = "BENCH_KEY"\ncontext_window = 1000000\n`,
  );
  const env: Record<string, string> = {
    HOME: Deno.env.get("HOME") ?? "/root",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
    REASONIX_HOME: home,
    BENCH_KEY: "sk-bench",
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  return {
    repo,
    home,
    env,
    dispose: async () => {
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** A tool call on every turn but the last; `grep` runs `rg`, `read_file` stays in process. */
function toolSteps(turns: number, tool: "read_file" | "grep"): Step {
  return (i) =>
    i + 1 < turns
      ? {
        text: `Step ${i + 1}.`,
        chunkBytes: 65536,
        toolCalls: [{
          name: tool,
          arguments: tool === "grep"
            ? '{"pattern":"line","output_mode":"count"}'
            : '{"path":"notes.txt"}',
        }],
      }
      : { text: "All steps done.", chunkBytes: 65536 };
}

/** Reads utime + stime of a live process in ms, through `cat` (see `peakRss` in run.ts). */
async function cpuMs(pid: number): Promise<number> {
  const out = await new Deno.Command("cat", {
    args: [`/proc/${pid}/stat`],
    stdout: "piped",
    stderr: "null",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat (1-based), after pid and comm: clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What one headless session measured. */
export interface HarnessRun {
  /** Harness time of turn n (between answer n-1 and request n), for n = 1… */
  gapMs: number[];
  /** Peak RSS of the process, bytes. */
  peakRss: number;
  /**
   * The live heap at the session's end: the heap after a full collection as the process exits
   * (`LIVE_HEAP_PRELOAD`), or the largest heap after a mark-compact where `gc` is not exposed.
   */
  liveHeap: number;
  largestRequest: number;
  firstRequest: number;
  cpuPerTurnMs: number;
  cacheShare: number;
}

/**
 * Run before the program: as it exits, one full collection, then the heap that is left on
 * stderr. The largest heap after V8's own mark-compacts understates it, as they may all fall
 * early in the session.
 */
const LIVE_HEAP_PRELOAD = `globalThis.addEventListener("unload", () => {
  const gc = globalThis.gc;
  if (typeof gc !== "function") return;
  gc({ type: "major" });
  console.error("reasonix-bench-live-heap", Deno.memoryUsage().heapUsed);
});
`;

/** Runs `turns` model turns headless with `tool` on every turn. */
export async function headlessSession(
  program: Program,
  turns: number,
  tool: "read_file" | "grep" = "read_file",
): Promise<HarnessRun> {
  const server = startTimingServer(toolSteps(turns, tool));
  const ws = await benchWorkspace(server.url, turns);
  const timeFile = join(ws.home, "time.txt");
  const preload = join(ws.home, "live_heap.js");
  await Deno.writeTextFile(preload, LIVE_HEAP_PRELOAD);
  try {
    const out = await new Deno.Command("/usr/bin/time", {
      args: [
        "-f",
        "%M %U %S",
        "-o",
        timeFile,
        Deno.execPath(),
        ...program.argv("--trace-gc", preload),
        "run",
        "work for a while",
      ],
      cwd: ws.repo,
      env: ws.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(`${program.label}: ${new TextDecoder().decode(out.stderr)}\n${stdout}`);
    }
    const [maxKb, user, sys] = (await Deno.readTextFile(timeFile)).trim().split("\n").at(-1)!
      .split(" ").map(Number);
    const atExit = /reasonix-bench-live-heap (\d+)/.exec(new TextDecoder().decode(out.stderr));
    let liveHeap = atExit ? Number(atExit[1]) : 0;
    if (!atExit) {
      for (const m of stdout.matchAll(/(?:Mark-Compact|Mark-sweep)[^\n]*?-> ([\d.]+) \(/g)) {
        liveHeap = Math.max(liveHeap, Number(m[1]) * 2 ** 20);
      }
    }
    const ex = server.exchanges;
    if (ex.length !== turns) throw new Error(`${program.label}: ${ex.length} of ${turns} requests`);
    const gapMs = ex.slice(1).map((e, i) => e.arrived - ex[i].answered);
    const bytes = ex.reduce((n, e) => n + e.bytes, 0);
    return {
      gapMs,
      peakRss: maxKb * 1024,
      liveHeap,
      largestRequest: Math.max(...ex.map((e) => e.bytes)),
      firstRequest: ex[0].bytes,
      cpuPerTurnMs: ((user + sys) * 1000) / turns,
      cacheShare: ex.reduce((n, e) => n + e.sharedBytes, 0) / bytes,
    };
  } finally {
    await server.close();
    await ws.dispose();
  }
}

/** Least-squares fit of `ms ≈ a + b·n` over turns `from…` of a run. */
export function fitGrowth(gapMs: readonly number[], from = 20): { a: number; b: number } {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = from; i < gapMs.length; i++) {
    xs.push(i + 1);
    ys.push(gapMs[i]);
  }
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length;
  const my = ys.reduce((s, y) => s + y, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const b = sxy / sxx;
  return { a: my - b * mx, b };
}

/** Median harness time of the turns in `(n - 10, n + 10]` (or the last 20 at the end). */
export function gapAt(gapMs: readonly number[], n: number): number {
  const end = Math.min(gapMs.length, n + 10);
  const slice = gapMs.slice(Math.max(0, end - 20), end);
  const sorted = [...slice].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/** The interactive UI's CPU per turn around turns `at` (mean over ±10 turns). */
export async function uiSession(
  program: Program,
  at: readonly number[],
): Promise<{ cpuPerTurnMs: Record<number, number> }> {
  const turns = Math.max(...at) + 12;
  let pid = 0;
  const samples = new Map<number, number>();
  const wanted = new Set(at.flatMap((n) => [n - 10, n + 10]));
  const server = startTimingServer(toolSteps(turns, "read_file"), {
    onRequest: async (i) => {
      // The program waits for this answer: sampling here steals no time from a turn.
      if (wanted.has(i) && pid) samples.set(i, await cpuMs(pid));
    },
  });
  const ws = await benchWorkspace(server.url, turns);
  const pidFile = join(ws.home, "pid");
  const argv = [
    "env",
    "-i",
    ...Object.entries(ws.env).map(([k, v]) => `${k}=${v}`),
    "sh",
    "-c",
    `echo $$ > '${pidFile}'; exec "$0" "$@"`,
    Deno.execPath(),
    ...program.argv(),
  ];
  const tmux = await TmuxSession.start(argv, { cwd: ws.repo, width: 100, height: 40 });
  try {
    await tmux.waitFor("Ask anything", 60_000);
    pid = Number((await Deno.readTextFile(pidFile)).trim());
    await tmux.type("work for a while");
    await tmux.keys("Enter");
    await tmux.waitFor("All steps done.", 600_000);
    const cpuPerTurnMs: Record<number, number> = {};
    for (const n of at) cpuPerTurnMs[n] = (samples.get(n + 10)! - samples.get(n - 10)!) / 20;
    return { cpuPerTurnMs };
  } finally {
    await tmux.kill();
    await server.close();
    await ws.dispose();
  }
}

/** Spawn → first request, the first request's size and one turn's peak RSS. */
export async function startup(
  program: Program,
): Promise<{ ms: number; bytes: number; rss: number }> {
  const server = startTimingServer(() => ({ text: "ok", chunkBytes: 65536 }));
  const ws = await benchWorkspace(server.url, 1);
  const timeFile = join(ws.home, "time.txt");
  try {
    const start = performance.now();
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-f", "%M", "-o", timeFile, Deno.execPath(), ...program.argv(), "run", "say ok"],
      cwd: ws.repo,
      env: ws.env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`${program.label}: ${new TextDecoder().decode(out.stderr)}`);
    const kb = Number((await Deno.readTextFile(timeFile)).trim().split("\n").at(-1));
    const first = server.exchanges[0];
    return { ms: first.arrived - start, bytes: first.bytes, rss: kb * 1024 };
  } finally {
    await server.close();
    await ws.dispose();
  }
}

/** A program run from a bundle directory with the launcher's flags (`RUN_FLAGS`). */
export function bundleProgram(label: string, dir: string, runFlags: readonly string[]): Program {
  return {
    label,
    argv: (extraV8, preload) => [
      "run",
      ...runFlags.map((f) => f.startsWith("--v8-flags=") && extraV8 ? `${f},${extraV8}` : f),
      ...(preload ? ["--preload", preload] : []),
      "--config",
      join(dir, "deno.json"),
      join(dir, "cli", "main.js"),
    ],
  };
}

function med(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Per-turn turns the table reports. */
export const TURN_MARKS: readonly number[] = [100, 200, 400, 800, 1600];

/**
 * Measures every program in the same run, interleaved (`runs` rounds, medians reported), and
 * returns a Markdown table with one column per program.
 */
export async function harnessTable(
  programs: readonly Program[],
  opts: { runs?: number; ui?: boolean } = {},
): Promise<string[]> {
  const runs = opts.runs ?? 3;
  type Sample = Record<string, number[]>;
  const samples = programs.map((): Sample => ({}));
  const add = (i: number, key: string, value: number) => (samples[i][key] ??= []).push(value);
  for (let r = 0; r < runs; r++) {
    for (const [i, p] of programs.entries()) {
      const oneTurn: number[] = [];
      for (let k = 0; k < 3; k++) {
        const s = await startup(p);
        add(i, "spawn", s.ms);
        add(i, "first", s.bytes);
        add(i, "rss1", s.rss);
        oneTurn.push(s.rss);
      }
      const short = await headlessSession(p, 200);
      add(i, "rss200", short.peakRss);
      const grep = await headlessSession(p, 200, "grep");
      // Tool time: the same 200 turns with `grep` (an `rg` subprocess) instead of `read_file`.
      add(i, "tool", med(grep.gapMs) - med(short.gapMs));
      const long = await headlessSession(p, 1600);
      for (const n of TURN_MARKS) add(i, `t${n}`, gapAt(long.gapMs, n));
      const fit = fitGrowth(long.gapMs);
      add(i, "a", fit.a);
      add(i, "b", fit.b * 1000);
      add(i, "cpu", long.cpuPerTurnMs);
      add(i, "rss", long.peakRss);
      // What 1,600 turns add to a process that ran one: the runtime's own floor apart.
      add(i, "growth", long.peakRss - med(oneTurn));
      add(i, "bound", 2 * (long.liveHeap + long.largestRequest));
      add(i, "live", long.liveHeap);
      add(i, "largest", long.largestRequest);
      add(i, "share", long.cacheShare);
    }
  }
  if (opts.ui && await TmuxSession.available()) {
    for (const [i, p] of programs.entries()) {
      const ui = await uiSession(p, [50, 400]);
      add(i, "ui50", ui.cpuPerTurnMs[50]);
      add(i, "ui400", ui.cpuPerTurnMs[400]);
    }
  }
  const mb = (v: number) => `${(v / 2 ** 20).toFixed(1)} MB`;
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const rows: [string, string, (v: number) => string][] = [
    ["spawn → first model request", "spawn", (v) => `${v.toFixed(0)} ms`],
    ["first request size", "first", (v) => `${(v / 1024).toFixed(2)} KiB`],
    ["peak RSS, one turn", "rss1", mb],
    ["peak RSS, 200 turns", "rss200", mb],
    ...TURN_MARKS.map((n): [string, string, (v: number) => string] => [
      `harness time per turn at ${n}`,
      `t${n}`,
      ms,
    ]),
    ["fitted a (ms) in a + b·n", "a", ms],
    ["fitted b (µs per turn of history)", "b", (v) => `${v.toFixed(2)} µs`],
    ["CPU per turn, 1,600 headless turns", "cpu", ms],
    ["tool time per turn (grep's rg)", "tool", ms],
    ["peak RSS, 1,600 turns", "rss", mb],
    ["  growth over one turn's peak RSS", "growth", mb],
    ["live heap at turn 1,600 (after a full collection)", "live", mb],
    ["  2 × (live heap + largest request)", "bound", mb],
    ["largest request, 1,600 turns", "largest", (v) => `${(v / 1024).toFixed(0)} KiB`],
    ["bytes a prefix cache could serve", "share", (v) => `${(v * 100).toFixed(1)} %`],
    ["UI CPU per turn at turn 50 (tmux)", "ui50", ms],
    ["UI CPU per turn at turn 400 (tmux)", "ui400", ms],
  ];
  const width = 44;
  const head = `| ${"measure".padEnd(width)} | ${
    programs.map((p) => p.label.padStart(12)).join(" | ")
  } |`;
  const rule = `|${"-".repeat(width + 2)}|${programs.map(() => "-".repeat(14)).join("|")}|`;
  const body = rows.filter(([, key]) => samples.some((s) => s[key])).map(([name, key, f]) =>
    `| ${name.padEnd(width)} | ${
      samples.map((s) => (s[key] ? f(med(s[key])) : "n/a").padStart(12)).join(" | ")
    } |`
  );
  return [head, rule, ...body];
}
