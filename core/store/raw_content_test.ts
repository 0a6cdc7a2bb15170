import assert from "node:assert/strict";
import { join } from "node:path";
import { rawPath, readTranscript, TranscriptWriter } from "./transcript.ts";

const meta = { id: "s1", created: "2026-11-30T00:00:00.000Z", workspace: "/w", model: "p/m" };

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-raw-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const big = "line €\n".repeat(30_000); // 270,000 UTF-8 bytes, multi-byte characters

Deno.test("raw content goes to the session's raw file and comes back only when asked", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s1.jsonl");
    const writer = await TranscriptWriter.open(path);
    writer.append({ t: "session", v: 1, meta });
    writer.append({ t: "msg", i: 0, m: { role: "user", content: "go" } });
    writer.append({
      t: "msg",
      i: 1,
      m: { role: "tool", toolCallId: "c1", name: "bash", content: "head … tail", rawContent: big },
    });
    writer.close();
    assert.equal(rawPath(path), join(dir, "s1.raw"));
    const transcript = await Deno.readTextFile(path);
    // The transcript holds what the model saw; listing and searching never read the raw text.
    assert.ok(transcript.length < 1000, `${transcript.length} characters`);
    assert.ok(!transcript.includes("line €"));
    assert.equal(await Deno.readTextFile(rawPath(path)), big);
    assert.equal((await Deno.stat(rawPath(path))).mode! & 0o777, 0o600);
    const plain = await readTranscript(path);
    assert.equal(plain?.messages[1].rawContent, undefined);
    assert.equal(plain?.messages[1].content, "head … tail");
    const full = await readTranscript(path, { raw: true });
    assert.equal(full?.messages[1].rawContent, big);
    assert.equal(full?.messages[0].rawContent, undefined);
    assert.equal(full?.skippedLines, 0);
  });
});

Deno.test("raw bytes a crash left without a record are never referenced", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s1.jsonl");
    const first = await TranscriptWriter.open(path);
    first.append({ t: "session", v: 1, meta });
    first.append({ t: "msg", i: 0, m: { role: "tool", content: "a", rawContent: "AAAA" } });
    first.close();
    // A crash after the raw write, before its message record.
    await Deno.writeTextFile(rawPath(path), "ORPHAN", { append: true });
    const second = await TranscriptWriter.open(path);
    second.append({ t: "msg", i: 1, m: { role: "tool", content: "b", rawContent: "BBBB" } });
    second.close();
    const loaded = await readTranscript(path, { raw: true });
    assert.deepEqual(loaded?.messages.map((m) => m.rawContent), ["AAAA", "BBBB"]);
  });
});

Deno.test("a lost or cut raw file leaves the messages with their bounded content", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s1.jsonl");
    const writer = await TranscriptWriter.open(path);
    writer.append({ t: "session", v: 1, meta });
    writer.append({ t: "msg", i: 0, m: { role: "tool", content: "a", rawContent: "AAAA" } });
    writer.append({ t: "msg", i: 1, m: { role: "tool", content: "b", rawContent: "BBBB" } });
    writer.close();
    await Deno.truncate(rawPath(path), 6);
    const cut = await readTranscript(path, { raw: true });
    assert.deepEqual(cut?.messages.map((m) => m.rawContent), ["AAAA", undefined]);
    assert.deepEqual(cut?.messages.map((m) => m.content), ["a", "b"]);
    await Deno.remove(rawPath(path));
    const lost = await readTranscript(path, { raw: true });
    assert.deepEqual(lost?.messages.map((m) => m.rawContent), [undefined, undefined]);
  });
});

Deno.test("raw content written inline by an earlier version still loads", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s1.jsonl");
    await Deno.writeTextFile(
      path,
      [
        JSON.stringify({ t: "session", v: 1, meta }),
        JSON.stringify({ t: "msg", i: 0, m: { role: "tool", content: "a", rawContent: "old" } }),
      ].join("\n") + "\n",
    );
    const loaded = await readTranscript(path, { raw: true });
    assert.equal(loaded?.messages[0].rawContent, "old");
  });
});
