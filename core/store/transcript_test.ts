import assert from "node:assert/strict";
import { join } from "node:path";
import {
  parseTranscript,
  readTranscript,
  TranscriptError,
  TranscriptWriter,
} from "./transcript.ts";

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "reasonix-transcript-" });
}

const meta = { id: "s1", created: "2026-11-30T00:00:00.000Z", workspace: "/w", model: "p/m" };

Deno.test("records are appended one per line and read back in order", async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, "s1.jsonl");
    const writer = await TranscriptWriter.open(path);
    writer.append({ t: "session", v: 1, meta });
    writer.append({ t: "msg", i: 0, m: { role: "user", content: "hi" } });
    writer.append({ t: "msg", i: 1, m: { role: "assistant", content: "hello" } });
    writer.append({ t: "proj", p: { generation: 1, summarizedUpTo: 0, pruned: [1] } });
    writer.close();
    const loaded = await readTranscript(path);
    assert.deepEqual(loaded?.meta, meta);
    assert.deepEqual(loaded?.messages.map((m) => m.content), ["hi", "hello"]);
    assert.deepEqual(loaded?.projection?.pruned, [1]);
    assert.equal(loaded?.skippedLines, 0);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a torn last line is skipped, never the whole file, and the next append starts clean", async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, "s1.jsonl");
    const good = [
      JSON.stringify({ t: "session", v: 1, meta }),
      JSON.stringify({ t: "msg", i: 0, m: { role: "user", content: "kept" } }),
    ].join("\n") + "\n";
    await Deno.writeTextFile(path, good + '{"t":"msg","i":1,"m":{"role":"assis');
    const loaded = await readTranscript(path);
    assert.deepEqual(loaded?.messages.map((m) => m.content), ["kept"]);
    assert.equal(loaded?.skippedLines, 1);
    const writer = await TranscriptWriter.open(path);
    writer.append({ t: "msg", i: 1, m: { role: "assistant", content: "after the crash" } });
    writer.close();
    const again = await readTranscript(path);
    assert.deepEqual(again?.messages.map((m) => m.content), ["kept", "after the crash"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("out-of-order or duplicated message lines are ignored, not trusted", () => {
  const text = [
    JSON.stringify({ t: "session", v: 1, meta }),
    JSON.stringify({ t: "msg", i: 0, m: { role: "user", content: "a" } }),
    JSON.stringify({ t: "msg", i: 0, m: { role: "user", content: "dup" } }),
    JSON.stringify({ t: "msg", i: 5, m: { role: "user", content: "gap" } }),
    JSON.stringify({ t: "msg", i: 1, m: { role: "assistant", content: "b" } }),
  ].join("\n");
  const loaded = parseTranscript(text);
  assert.deepEqual(loaded?.messages.map((m) => m.content), ["a", "b"]);
  assert.equal(loaded?.skippedLines, 2);
});

Deno.test("records that parse but are damaged are skipped and counted, never loaded", () => {
  const text = [
    JSON.stringify({ t: "session", v: 1, meta: { id: 5 } }),
    JSON.stringify({ t: "session", v: 1, meta }),
    JSON.stringify({ t: "msg", i: 0, m: { role: "user", content: "a" } }),
    JSON.stringify({ t: "msg", i: 1, m: null }),
    JSON.stringify({ t: "msg", i: 1, m: "hello" }),
    JSON.stringify({ t: "msg", i: 1, m: { role: "user", content: 5 } }),
    JSON.stringify({ t: "msg", i: 1, m: { role: "wizard", content: "x" } }),
    JSON.stringify({ t: "msg", i: 1, m: { role: "assistant", content: "", toolCalls: [{}] } }),
    JSON.stringify({ t: "msg", i: 1, m: { role: "assistant", content: "b" } }),
    JSON.stringify({ t: "proj", p: { generation: "1" } }),
    JSON.stringify({ t: "fail", f: { generation: 1 } }),
  ].join("\n");
  const loaded = parseTranscript(text);
  assert.equal(loaded?.meta.id, "s1");
  assert.equal(loaded?.version, 1);
  assert.deepEqual(loaded?.messages, [
    { role: "user", content: "a" },
    { role: "assistant", content: "b" },
  ]);
  assert.equal(loaded?.projection, undefined);
  assert.deepEqual(loaded?.failures, []);
  assert.equal(loaded?.skippedLines, 8);
});

Deno.test("a transcript held by a live process is refused with a clear error", async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, "s1.jsonl");
    const first = await TranscriptWriter.open(path);
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { TranscriptWriter } from ${
          JSON.stringify(new URL("./transcript.ts", import.meta.url).href)
        };
         try { await TranscriptWriter.open(${JSON.stringify(path)}); console.log("opened"); }
         catch (e) { console.log(e.code); }`,
      ],
      stdout: "piped",
      stderr: "inherit",
    });
    const out = new TextDecoder().decode((await child.output()).stdout).trim();
    assert.equal(out, "transcript_locked");
    first.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("appending after close is an error, not a silent loss", async () => {
  const dir = await tempDir();
  try {
    const writer = await TranscriptWriter.open(join(dir, "x.jsonl"));
    writer.close();
    assert.throws(() => writer.append({ t: "session", v: 1, meta }), TranscriptError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a lock left by a dead process is taken over", async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, "s1.jsonl");
    const dead = new Deno.Command("true").spawn();
    await dead.status;
    await Deno.writeTextFile(`${path}.lock`, String(dead.pid));
    const writer = await TranscriptWriter.open(path);
    assert.equal(await Deno.readTextFile(`${path}.lock`), String(Deno.pid));
    writer.close();
    await assert.rejects(() => Deno.stat(`${path}.lock`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
