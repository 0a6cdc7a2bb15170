/**
 * `reasonix serve` under load: a 200-turn session streamed into 5 connected event-stream
 * clients. Reports the latency from the moment the agent's event enters the session's ring
 * (the server's hand-off to every open socket) to its arrival at each client, p50 and p99,
 * and the server process's RSS at the start, along the way and at the end, with the ring's
 * size (bounded, so memory must level off).
 *
 * The server, its host and the clients share this process (one clock); the fake model runs
 * in another process so its memory is not counted.
 *
 * Run: `deno run -A --v8-flags=--expose-gc tests/bench/serve.ts [--turns N] [--clients N]`
 * (with `--expose-gc` the live heap is measured after a collection).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openHost } from "../../cli/host.ts";
import { startServe } from "../../cli/serve/command.ts";
import { makeHome, makeRepo } from "../e2e/support.ts";
import { events, login, post, state } from "../e2e/serve_support.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

function arg(name: string, fallback: number): number {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Starts the fake model in a process of its own; returns its URL and a stop function. */
async function fakeModel(): Promise<{ url: string; close(): Promise<void> }> {
  const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
  const script = join(await Deno.makeTempDir(), "steps.json");
  await Deno.writeTextFile(script, JSON.stringify([{ text: `Answer: ${words}.`, chunkBytes: 64 }]));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      join(HERE, "../fake_llm/main.ts"),
      "--script",
      script,
      "--cycle",
      "--keep-alive",
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (!buffer.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the fake model did not start");
    buffer += value;
  }
  // Keep draining its per-request lines.
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  return {
    url: buffer.split("\n")[0].trim(),
    close: async () => {
      child.kill();
      await child.status;
    },
  };
}

/** Runs the bench; returns the table rows. */
export async function serveBench(turns = 200, clients = 5): Promise<string[]> {
  const fake = await fakeModel();
  const repo = await makeRepo({});
  const home = await makeHome(fake.url, `\n[agent]\nmax_turns = 5\n`);
  const host = await openHost({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-bench" },
  });
  const serve = await startServe(host, { host: "127.0.0.1", port: 0 });
  const lab = { serve, origin: serve.origin } as Parameters<typeof login>[0];
  const gc = (globalThis as { gc?: () => void }).gc;
  const sample = (turn: number, ring: number) => {
    gc?.();
    const m = Deno.memoryUsage();
    return { turn, rss: m.rss / 1e6, heap: m.heapUsed / 1e6, ring };
  };
  const samples: { turn: number; rss: number; heap: number; ring: number }[] = [];
  try {
    const who = await login(lab);
    const s = await state(lab, who);
    const id = s.info.sessionId;
    const ring = serve.app.ring(id);
    // When each event entered the ring; forgotten once every client has it.
    const pushed = new Map<string, { at: number; left: number }>();
    ring.subscribe((e) => pushed.set(e.id, { at: performance.now(), left: clients }));
    const latencies: number[] = [];
    let received = 0;
    const stopAll = new AbortController();
    // Each client reads the stream as a browser would (keeping nothing), timing every frame.
    const readers = await Promise.all(
      Array.from({ length: clients }, () => events(lab, who, id, s.after)),
    );
    const reading = readers.map(async (res) => {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      while (!stopAll.signal.aborted) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const id = /^id: (.+)$/m.exec(block)?.[1];
          const entry = id === undefined ? undefined : pushed.get(id);
          if (!entry) continue;
          latencies.push(performance.now() - entry.at);
          received++;
          if (--entry.left === 0) pushed.delete(id!);
        }
      }
      await reader.cancel().catch(() => {});
    });
    // Client 0's own view tells when a turn is over.
    let idleCount = 0;
    let wake = () => {};
    ring.subscribe((e) => {
      if (e.data === '{"type":"idle"}') {
        idleCount++;
        wake();
      }
    });
    samples.push(sample(0, ring.size));
    const started = performance.now();
    for (let t = 1; t <= turns; t++) {
      const done = new Promise<void>((r) => wake = r);
      const res = await post(lab, "/api/turn", { text: `turn ${t}`, sessionId: id }, who);
      if (res.status !== 202) throw new Error(`turn ${t}: ${res.status} ${await res.text()}`);
      await done;
      if (t % 50 === 0) samples.push(sample(t, ring.size));
    }
    const elapsed = performance.now() - started;
    // Let the last frames arrive.
    await new Promise((r) => setTimeout(r, 200));
    stopAll.abort();
    ring.push({ type: "notice", level: "info", message: "bench over" });
    await Promise.all(reading);
    const sorted = [...latencies].sort((a, b) => a - b);
    const rows = [
      `| ${"measure".padEnd(44)} | ${"value".padStart(14)} |`,
      `| ${"-".repeat(44)} | ${"-".repeat(14)}:|`,
      `| ${`turns × clients`.padEnd(44)} | ${`${turns} × ${clients}`.padStart(14)} |`,
      `| ${"events delivered (all clients)".padEnd(44)} | ${String(received).padStart(14)} |`,
      `| ${"agent → socket latency p50".padEnd(44)} | ${
        `${quantile(sorted, 0.5).toFixed(2)} ms`.padStart(14)
      } |`,
      `| ${"agent → socket latency p99".padEnd(44)} | ${
        `${quantile(sorted, 0.99).toFixed(2)} ms`.padStart(14)
      } |`,
      `| ${"agent → socket latency max".padEnd(44)} | ${
        `${sorted.at(-1)!.toFixed(2)} ms`.padStart(14)
      } |`,
      `| ${"wall time per turn".padEnd(44)} | ${
        `${(elapsed / turns).toFixed(1)} ms`.padStart(14)
      } |`,
      ...samples.map((x) =>
        `| ${`RSS / live heap at turn ${x.turn} (ring ${x.ring})`.padEnd(44)} | ${
          `${x.rss.toFixed(0)} / ${x.heap.toFixed(1)} MB`.padStart(14)
        } |`
      ),
    ];
    void idleCount;
    return rows;
  } finally {
    await serve.close();
    await host.close();
    await fake.close();
    await Deno.remove(repo, { recursive: true }).catch(() => {});
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  console.log((await serveBench(arg("--turns", 200), arg("--clients", 5))).join("\n"));
}
