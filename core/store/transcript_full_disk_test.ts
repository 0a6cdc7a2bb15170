/**
 * The transcript writer on a real full filesystem: a 16 KiB tmpfs made by bubblewrap, filled
 * until an append is refused, then given space again.
 */
import assert from "node:assert/strict";
import { moduleUrl, runOnSmallFs } from "../../tests/support/small_fs.ts";

/** Runs in the sandbox: append until the disk refuses, free space, append again. */
const CHILD = `
import { parseTranscript, TranscriptWriter } from ${moduleUrl("./transcript.ts", import.meta.url)};
const dir = Deno.args[0];
const path = dir + "/s.jsonl";
await Deno.writeFile(dir + "/filler", new Uint8Array(8192));
const writer = await TranscriptWriter.open(path);
writer.append({
  t: "session",
  v: 1,
  meta: { id: "s", created: "2026-11-30T00:00:00Z", workspace: "/w", model: "m" },
});
let i = 0;
let refused;
while (i < 100) {
  try {
    writer.append({ t: "msg", i, m: { role: "user", content: "x".repeat(1500) + i } });
    i++;
  } catch (error) {
    refused = { code: error.code, message: error.message, pending: writer.pendingRecords };
    break;
  }
}
const whileFull = parseTranscript(await Deno.readTextFile(path));
await Deno.remove(dir + "/filler");
writer.append({ t: "msg", i: i + 1, m: { role: "assistant", content: "after" } });
const pendingAfter = writer.pendingRecords;
writer.close();
const after = parseTranscript(await Deno.readTextFile(path));
console.log(JSON.stringify({
  written: i,
  refused,
  whileFull: { messages: whileFull.messages.length, skipped: whileFull.skippedLines },
  pendingAfter,
  after: { messages: after.messages.map((m) => m.content.slice(-5)), skipped: after.skippedLines },
}));
`;

Deno.test({
  name: "a refused append leaves whole records on disk and is written first once space returns",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const out = await runOnSmallFs(CHILD, 16384);
    assert.ok(out.success, out.stderr);
    const r = JSON.parse(out.stdout);
    assert.ok(r.written >= 1 && r.written < 100, `written before the disk filled: ${r.written}`);
    assert.equal(r.refused.code, "transcript_write");
    assert.match(r.refused.message, /No space left on device/);
    assert.equal(r.refused.pending, 1, "the refused record waits in memory");
    assert.deepEqual(r.whileFull, { messages: r.written, skipped: 0 });
    assert.equal(r.pendingAfter, 0);
    // The refused record comes first, then the new one: nothing lost, order kept.
    assert.equal(r.after.skipped, 0);
    assert.equal(r.after.messages.length, r.written + 2);
    assert.equal(r.after.messages.at(-2), `xxxxx${r.written}`.slice(-5));
    assert.equal(r.after.messages.at(-1), "after");
  },
});
