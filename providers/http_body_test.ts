import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { RUN_FLAGS } from "../cli/release/compile.ts";
import { postForStream } from "./http.ts";

const SSE = "data: {}\n\ndata: [DONE]\n\n";

/**
 * A raw HTTP/1.1 server that keeps each request's head and body bytes exactly as they arrived,
 * so the framing (Content-Length or chunked) is what the test sees, not what a parser made of it.
 */
function rawServer(): { url: string; heads: string[]; bodies: Uint8Array[]; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const bodies: Uint8Array[] = [];
  const decoder = new TextDecoder();
  (async () => {
    for await (const conn of listener) {
      (async () => {
        let buf = new Uint8Array(1 << 16);
        let len = 0;
        const more = async () => {
          if (len === buf.length) {
            const grown = new Uint8Array(buf.length * 2);
            grown.set(buf);
            buf = grown;
          }
          const n = await conn.read(buf.subarray(len));
          if (n === null) throw new Error("closed");
          len += n;
        };
        try {
          while (true) {
            let end = -1;
            while ((end = decoder.decode(buf.subarray(0, len)).indexOf("\r\n\r\n")) < 0) {
              await more();
            }
            const head = decoder.decode(buf.subarray(0, end));
            const start = end + 4;
            const declared = /^content-length: *(\d+)$/im.exec(head);
            let stop = start;
            if (declared) {
              stop = start + Number(declared[1]);
              while (len < stop) await more();
            } else if (/^transfer-encoding: *chunked$/im.test(head)) {
              while (!decoder.decode(buf.subarray(start, len)).endsWith("0\r\n\r\n")) await more();
              stop = len;
            }
            heads.push(head);
            bodies.push(buf.slice(start, stop));
            await conn.write(new TextEncoder().encode(
              "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
                `content-length: ${SSE.length}\r\n\r\n${SSE}`,
            ));
            buf.copyWithin(0, stop, len);
            len -= stop;
          }
        } catch {
          conn.close();
        }
      })();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/v1/chat/completions`,
    heads,
    bodies,
    close: () => listener.close(),
  };
}

Deno.test("a request body goes out with Content-Length and never chunked", async () => {
  const server = rawServer();
  try {
    const text = JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "héllo 世界" }],
    });
    const bytes = new TextEncoder().encode(text.repeat(3000));
    for (const body of [bytes, text]) {
      const response = await postForStream({
        provider: "p",
        url: server.url,
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.body?.cancel();
    }
    assert.equal(server.heads.length, 2);
    const expected = [bytes, new TextEncoder().encode(text)];
    server.heads.forEach((head, i) => {
      assert.match(head, new RegExp(`^content-length: ${expected[i].byteLength}$`, "im"));
      assert.doesNotMatch(head, /transfer-encoding/i);
      assert.deepEqual(server.bodies[i], expected[i]);
    });
  } finally {
    server.close();
  }
});

/**
 * Runs `loop` (statements after `postForStream` is imported and the fake server's URL is in
 * `url`) in a process of its own with the launcher's V8 flags plus `extraV8`; returns its
 * stdout and how many bodies the server received.
 */
async function postScript(loop: string, extraV8 = ""): Promise<{ stdout: string; bodies: number }> {
  const dir = await Deno.makeTempDir();
  const script = `${dir}/post.ts`;
  const http = new URL("./http.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { postForStream } from ${JSON.stringify(http)};\nconst url = Deno.args[0];\n${loop}`,
  );
  const server = rawServer();
  try {
    const v8 = RUN_FLAGS.find((f) => f.startsWith("--v8-flags="));
    assert.ok(v8?.split(/[=,]/).includes("--expose-gc"), "the launcher exposes gc");
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-net",
        `--allow-read=${fileURLToPath(new URL("..", import.meta.url))},${dir}`,
        extraV8 ? `${v8},${extraV8}` : v8!,
        script,
        server.url,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return { stdout: new TextDecoder().decode(out.stdout), bodies: server.bodies.length };
  } finally {
    server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

// fetch copies every body into a buffer outside the JS heap. Without the scavenge before each
// request, 120 bodies of 400 KB pile up to the external-memory limit (~50 MB) before a full
// collection frees them.
Deno.test("the launcher's flags free each sent body's copy early", async () => {
  const { stdout, bodies } = await postScript(`
const bytes = new Uint8Array(400_000).fill(0x61);
let peak = 0;
for (let i = 0; i < 120; i++) {
  const r = await postForStream({ provider: "p", url, headers: {}, body: bytes, signal: AbortSignal.timeout(10_000) });
  await r.body?.cancel();
  peak = Math.max(peak, Deno.memoryUsage().external);
}
console.log(peak);
`);
  const peakMb = Number(stdout.trim()) / 1e6;
  assert.equal(bodies, 120);
  assert.ok(peakMb < 16, `external memory peaked at ${peakMb.toFixed(1)} MB`);
});

// Objects that live across a few requests reach the old generation and die there; V8 alone
// lets a small heap grow well past its live size before collecting it.
Deno.test("a heap grown 4 MB past its live size is collected before the next request", async () => {
  const { stdout } = await postScript(
    `
const body = new Uint8Array(40_000).fill(0x61);
const ring: unknown[][] = [];
let peak = 0;
for (let i = 0; i < 150; i++) {
  // 200 KB of objects per request, each alive for three requests: aged into the old generation.
  ring.push(Array.from({ length: 5_000 }, (_, k) => ({ i, k, text: "x".repeat(8) + k })));
  if (ring.length > 3) ring.shift();
  const r = await postForStream({ provider: "p", url, headers: {}, body, signal: AbortSignal.timeout(10_000) });
  await r.body?.cancel();
  peak = Math.max(peak, Deno.memoryUsage().heapUsed);
}
console.log("peak", peak);
`,
    "--trace-gc",
  );
  // `gc({ type: "major" })` is traced with the reason "testing"; V8's own are not.
  const full = stdout.split("\n").filter((line) => /Mark-Compact.*testing/.test(line));
  assert.ok(full.length >= 3, `${full.length} full collections asked for:\n${stdout.slice(-2000)}`);
  const peakMb = Number(/peak (\d+)/.exec(stdout)![1]) / 2 ** 20;
  assert.ok(peakMb < 16, `the heap peaked at ${peakMb.toFixed(1)} MB`);
});
