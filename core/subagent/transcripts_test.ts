import assert from "node:assert/strict";
import { join } from "node:path";
import { openSession, readTranscript } from "../store/mod.ts";
import { forkTranscript, locateChildTranscript, TranscriptRefusal } from "./transcripts.ts";

Deno.test("a forked transcript is a new session with the same messages, raw content included", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const opened = await openSession({ dir, workspace: "/w", model: "fake/m" });
    opened.session.append({ role: "user", content: "look" });
    opened.session.append({
      role: "tool",
      toolCallId: "c1",
      name: "read_file",
      content: "short",
      rawContent: "the whole output",
    });
    opened.writer.close();
    const source = await locateChildTranscript(dir, opened.session.id.slice(0, 8));
    assert.equal(source.id, opened.session.id);

    const id = await forkTranscript(dir, source.path);
    assert.notEqual(id, opened.session.id);
    const copy = await readTranscript(join(dir, `${id}.jsonl`), { raw: true });
    assert.equal(copy?.meta.id, id);
    assert.deepEqual(copy?.messages.map((m) => m.content), ["look", "short"]);
    assert.equal(copy?.messages[1].rawContent, "the whole output");
    const original = await readTranscript(source.path, { raw: true });
    assert.equal(original?.meta.id, opened.session.id);
    await assert.rejects(() => locateChildTranscript(dir, "nope"), TranscriptRefusal);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
