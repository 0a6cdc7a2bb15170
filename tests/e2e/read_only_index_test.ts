/**
 * Read-only mode gives up Deno's write permission for good, yet the indexes of the sessions
 * folder are still saved: their files are opened before the lock-down and rewritten in place.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { loadHistory } from "../../core/memory/history_store.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

async function indexDirs(root: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    if (!entry.isDirectory) continue;
    const path = join(root, entry.name);
    if (entry.name === ".index") out.push(path);
    else out.push(...await indexDirs(path));
  }
  return out;
}

Deno.test("read-only mode still saves the history index of the sessions folder", async () => {
  const fake = await startFakeLlm({
    script: [
      { text: "the zebracorn answer" },
      { toolCalls: [{ name: "history", arguments: JSON.stringify({ query: "zebracorn" }) }] },
      { text: "found it" },
    ],
  });
  const repo = await makeRepo({ "keep.txt": "keep\n" });
  const home = await makeHome(fake.url);
  try {
    const first = await runReasonix(["run", "tell me about zebracorn"], { cwd: repo, home });
    assert.equal(first.code, 0, first.stderr);
    // Nothing stored yet: the read-only run must build the index and save it itself.
    for (const dir of await indexDirs(home)) await Deno.remove(dir, { recursive: true });
    const run = await runReasonix(
      ["run", "--permission-mode", "read-only", "search the history"],
      { cwd: repo, home },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(JSON.stringify(fake.requests.at(-1)!.body), /zebracorn answer/);
    const [dir] = await indexDirs(home);
    assert.ok(dir, "an index folder exists");
    const stored = await loadHistory(join(dir, ".."));
    assert.ok(stored, "history.bin is a whole index");
    assert.ok(stored.refs.length >= 2, `${stored.refs.length} documents`);
    assert.ok(stored.index.search("zebracorn", 5).length >= 1);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
