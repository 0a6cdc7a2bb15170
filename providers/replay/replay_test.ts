import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../../tests/fake_llm/mod.ts";
import { collect, request, TEST_KEY } from "../../tests/support/provider_conformance.ts";
import { openRecording, type RecordLine } from "../recording.ts";
import { createProvider } from "../registry.ts";
import type { Chunk, Message } from "../types.ts";
import { parseRecording, ReplayError } from "./reader.ts";
import "../builtin_kinds.ts";

const signal = (): AbortSignal => new AbortController().signal;
const FAST = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 };

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-replay-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Two turns with a tool call and a retried 429, through `provider`. */
async function conversation(
  stream: (history: Message[]) => AsyncIterable<Chunk>,
): Promise<Chunk[][]> {
  const history: Message[] = [{ role: "user", content: "read a.ts — ünïcode" }];
  const first = await collect(stream(history));
  const calls = first.flatMap((c) => c.type === "tool_call" ? [c.call] : []);
  history.push({ role: "assistant", content: "", toolCalls: calls });
  history.push({ role: "tool", toolCallId: calls[0].id, content: "export {};" });
  const second = await collect(stream(history));
  return [first, second];
}

for (const kind of ["anthropic", "openai", "responses"] as const) {
  Deno.test(`${kind} traffic recorded against the fake replays identically without it`, async () => {
    await withDir(async (dir) => {
      const file = join(dir, "run.jsonl");
      const fake = await startFakeLlm({
        format: kind === "openai" ? "openai" : kind,
        script: [
          {
            reasoning: "Need the file — 需要.",
            toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' }],
            chunkBytes: 5,
          },
          { status: 429 },
          { text: "It exports nothing ✅.", chunkBytes: 3 },
        ],
      });
      let recorded: Chunk[][];
      const recording = openRecording(file, {
        provider: { name: "p", kind, model: "fake-model" },
        secrets: [TEST_KEY],
      });
      try {
        const provider = createProvider(kind, {
          name: "p",
          model: "fake-model",
          baseUrl: fake.url,
          apiKey: TEST_KEY,
          retry: FAST,
          fetch: recording.fetch,
        });
        recorded = await conversation((h) => provider.stream(request(h), { signal: signal() }));
      } finally {
        recording.close();
        await fake.close();
      }
      const text = await Deno.readTextFile(file);
      assert.ok(!text.includes(TEST_KEY), "the key is never written");
      const lines = text.trim().split("\n").map((l) => JSON.parse(l) as RecordLine);
      assert.equal(lines[0].type, "header");
      assert.deepEqual(
        lines.filter((l) => l.type === "response").map((l) => l.type === "response" && l.status),
        [200, 429, 200],
      );

      const replay = createProvider("replay", {
        name: "p",
        model: "fake-model",
        options: { file },
      });
      const replayed = await conversation((h) => replay.stream(request(h), { signal: signal() }));
      assert.deepEqual(replayed, recorded);
      assert.equal(
        recorded[1].map((c) => c.type === "text" ? c.text : "").join(""),
        "It exports nothing ✅.",
      );
    });
  });
}

Deno.test("a replay that diverges from the recording fails with a clear error", async () => {
  await withDir(async (dir) => {
    const file = join(dir, "run.jsonl");
    const fake = await startFakeLlm({ format: "anthropic", script: [{ text: "one" }] });
    const recording = openRecording(file, {
      provider: { name: "p", kind: "anthropic", model: "m" },
    });
    try {
      const provider = createProvider("anthropic", {
        name: "p",
        model: "m",
        baseUrl: fake.url,
        fetch: recording.fetch,
      });
      await collect(provider.stream(request(), { signal: signal() }));
    } finally {
      recording.close();
      await fake.close();
    }
    const replay = createProvider("replay", { name: "p", model: "m", options: { file } });
    const longer = request([
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "c" },
    ]);
    await assert.rejects(
      collect(replay.stream(longer, { signal: signal() })),
      (e: unknown) =>
        e instanceof ReplayError &&
        /request #1 carried 1 conversation items, now 3/.test(e.message),
    );
    const fresh = createProvider("replay", { name: "p", model: "m", options: { file } });
    await collect(fresh.stream(request(), { signal: signal() }));
    await assert.rejects(
      collect(fresh.stream(request(), { signal: signal() })),
      (e: unknown) =>
        e instanceof ReplayError &&
        /made request #2 but the recording holds only 1/.test(e.message),
    );
  });
});

Deno.test("recordings keep split multi-byte chunks exact and tolerate a torn last line", () => {
  const lines = [
    {
      type: "header",
      format: "reasonix-provider-recording",
      version: 1,
      provider: { name: "p", kind: "openai", model: "m" },
      created: "x",
    },
    {
      type: "request",
      n: 1,
      method: "POST",
      url: "http://h/v1/chat/completions",
      headers: {},
      body: "{}",
    },
    { type: "response", n: 1, status: 200, statusText: "OK", headers: {} },
    { type: "chunk", n: 1, ms: 1, base64: btoa(String.fromCharCode(0xe2, 0x9c)) },
    { type: "chunk", n: 1, ms: 2, base64: btoa(String.fromCharCode(0x85)) },
  ].map((l) => JSON.stringify(l));
  const parsed = parseRecording(`${lines.join("\n")}\n{"type":"end","n":`, "f");
  const [exchange] = parsed.exchanges;
  assert.equal(
    new TextDecoder().decode(new Uint8Array([...exchange.chunks[0], ...exchange.chunks[1]])),
    "✅",
  );
  assert.equal(exchange.ending, "missing");
  assert.throws(() => parseRecording(`{"type":"request"}\nnot json\n{}\n`, "f"), ReplayError);
  assert.throws(() => parseRecording("", "f"), /no recording header/);
});

Deno.test("the replay kind needs a readable file", () => {
  assert.throws(() => createProvider("replay", { name: "p", model: "m" }), TypeError);
  assert.throws(
    () => createProvider("replay", { name: "p", model: "m", options: { file: "/nonexistent/x" } }),
    ReplayError,
  );
});
