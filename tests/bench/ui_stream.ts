/**
 * How long the interactive UI takes to show a long streamed reply, in a real terminal (tmux)
 * against the fake LLM server. Four replies of the same size are streamed at the same pace:
 *
 * - (a) 2,000 blank-separated lines: many small blocks, the baseline
 * - (b) a 2,000-item list, (c) a 4,000-line code block, (d) a 4,000-line paragraph: one long
 *   Markdown block each, which must not cost more than the baseline (target ≤ 1.5×)
 *
 * The time is taken from the request's arrival at the fake to the moment the reply's last line
 * is on screen and the composer is idle again.
 *
 * ```sh
 * deno run -A tests/bench/ui_stream.ts [--runs N] [--only lines,list,code,paragraph]
 * ```
 *
 * @module
 */
import { startFakeLlm } from "../fake_llm/mod.ts";
import { interactiveArgv, makeHome, makeRepo } from "../e2e/support.ts";
import { TmuxSession } from "../e2e/tmux.ts";

/** The replies streamed, by case. */
export type UiStreamCase = "lines" | "list" | "code" | "paragraph";

// Every reply is 24,000 characters long (±10), so the same pace gives the same stream time.
/** Pause between SSE frames (each frame carries 1–11 characters). */
const DELAY_MS = 1;
const MARK = "ZZEND";

const CODE_LINES = ["let a", "x+=1;", "f(2);", "if(b)", "} //c"];

/** The reply text of a case; its last visible line contains `ZZEND`. */
export function replyText(kind: UiStreamCase): string {
  const n4 = (i: number): string => String(i).padStart(4, "0");
  switch (kind) {
    case "lines": // 2,000 × 12
      return Array.from({ length: 2000 }, (_, i) => i === 1999 ? `${MARK}-a ok` : `line ${n4(i)}.`)
        .join("\n\n") + "\n\n";
    case "list": // 2,000 × 12
      return Array.from(
        { length: 2000 },
        (_, i) => i === 1999 ? `- ${MARK}-b ok` : `- item ${n4(i)}`,
      )
        .join("\n") + "\n";
    case "code": // 4,000 × 6
      return "```ts\n" +
        Array.from({ length: 4000 }, (_, i) => i === 3999 ? MARK : CODE_LINES[i % 5]).join("\n") +
        "\n```\n";
    case "paragraph": // 4,000 × 6
      return Array.from({ length: 4000 }, (_, i) => i === 3999 ? MARK : `w${n4(i)}`).join("\n") +
        "\n";
  }
}

/** One measured reply. */
export interface UiStreamMeasure {
  kind: UiStreamCase;
  chars: number;
  /** Request arrival → reply fully on screen and the composer idle. */
  ms: number;
  /** CPU time the UI's processes spent in that interval (user + system). */
  cpuMs: number;
}

async function output(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).output();
  return new TextDecoder().decode(out.stdout);
}

/** CPU milliseconds used so far by the pane's process and all its descendants (Linux). */
async function paneCpuMs(tmux: TmuxSession): Promise<number> {
  const root = Number(
    (await output("tmux", ["-L", tmux.socket, "list-panes", "-t", tmux.name, "-F", "#{pane_pid}"]))
      .trim(),
  );
  const children = new Map<number, number[]>();
  for (const line of (await output("ps", ["-e", "-o", "pid=,ppid="])).trim().split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const pids: number[] = [];
  for (const queue = [root]; queue.length;) {
    const pid = queue.pop()!;
    pids.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  let ticks = 0;
  for (const pid of pids) {
    // Through `cat`: Deno reserves direct /proc reads for --allow-all.
    const stat = await output("cat", [`/proc/${pid}/stat`]);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks * 10;
}

async function measureOne(kind: UiStreamCase): Promise<UiStreamMeasure> {
  const text = replyText(kind);
  let arrived = 0;
  const fake = await startFakeLlm({
    script: () => {
      arrived = performance.now();
      return { text, delayMs: DELAY_MS };
    },
  });
  const repo = await makeRepo({ "README.md": "bench\n" });
  const home = await makeHome(fake.url);
  const argv = interactiveArgv(home);
  const tmux = await TmuxSession.start(argv, { cwd: repo, width: 100, height: 40 });
  try {
    await tmux.waitFor("Ask anything", 60_000);
    await tmux.type(`write the ${kind} reply`);
    await tmux.keys("Enter");
    const deadline = Date.now() + 300_000;
    while (arrived === 0) {
      if (Date.now() > deadline) throw new Error("the request never arrived");
      await new Promise((r) => setTimeout(r, 5));
    }
    const cpuBefore = await paneCpuMs(tmux);
    for (;;) {
      const screen = await tmux.capture(0);
      if (screen.includes(MARK) && screen.includes("Ask anything")) break;
      if (Date.now() > deadline) throw new Error(`${kind}: not on screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const ms = performance.now() - arrived;
    return { kind, chars: text.length, ms, cpuMs: (await paneCpuMs(tmux)) - cpuBefore };
  } finally {
    await tmux.kill();
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

const KINDS = ["lines", "list", "code", "paragraph"] as const;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Measures every case `runs` times and keeps the medians. Rounds interleave the cases, so
 * load from other programs on the machine spreads over all of them alike.
 */
export async function uiStreamBench(
  runs = 1,
  kinds: readonly UiStreamCase[] = KINDS,
): Promise<UiStreamMeasure[]> {
  const all = new Map<UiStreamCase, UiStreamMeasure[]>(kinds.map((k) => [k, []]));
  for (let r = 0; r < runs; r++) {
    for (const kind of kinds) all.get(kind)!.push(await measureOne(kind));
  }
  return kinds.map((kind) => {
    const runs = all.get(kind)!;
    return {
      kind,
      chars: runs[0].chars,
      ms: median(runs.map((m) => m.ms)),
      cpuMs: median(runs.map((m) => m.cpuMs)),
    };
  });
}

const LABELS: Record<UiStreamCase, string> = {
  lines: "(a) 2,000 blank-separated lines",
  list: "(b) 2,000-item list",
  code: "(c) 4,000-line code block",
  paragraph: "(d) 4,000-line paragraph",
};

/** The results as a Markdown table: time and ratio to the baseline, target ≤ 1.5×. */
export function uiStreamTable(rows: readonly UiStreamMeasure[]): string {
  const base = rows.find((r) => r.kind === "lines");
  return [
    "| reply (24,000 chars, same pace)          | on screen |  × (a) | UI CPU  |  × (a) | target | result |",
    "|------------------------------------------|-----------|--------|---------|--------|--------|--------|",
    ...rows.map((r) => {
      const ratio = r.ms / (base?.ms ?? NaN);
      const cpu = r.cpuMs / (base?.cpuMs ?? NaN);
      const baseline = r.kind === "lines";
      return `| ${LABELS[r.kind].padEnd(40)} | ${`${(r.ms / 1000).toFixed(2)} s`.padStart(9)} | ${
        ratio.toFixed(2).padStart(6)
      } | ${`${(r.cpuMs / 1000).toFixed(2)} s`.padStart(7)} | ${cpu.toFixed(2).padStart(6)} | ${
        (baseline ? "" : "≤ 1.5×").padEnd(6)
      } | ${(baseline ? "" : ratio <= 1.5 ? "ok" : "MISSED").padEnd(6)} |`;
    }),
  ].join("\n");
}

if (import.meta.main) {
  if (!(await TmuxSession.available())) {
    console.error("tmux is not installed");
    Deno.exit(2);
  }
  const i = Deno.args.indexOf("--runs");
  const runs = i >= 0 ? Math.max(1, Number(Deno.args[i + 1]) || 1) : 1;
  const j = Deno.args.indexOf("--only");
  const kinds = j >= 0
    ? Deno.args[j + 1].split(",").filter((k): k is UiStreamCase => KINDS.includes(k as never))
    : KINDS;
  console.log(uiStreamTable(await uiStreamBench(runs, kinds)));
}
