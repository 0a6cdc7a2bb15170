/**
 * The writing tools on a real full filesystem (a 32 KiB tmpfs made by bubblewrap): a write the
 * disk refuses is an error result for the model, and the user's file is left exactly as it was,
 * with no temporary file behind.
 */
import assert from "node:assert/strict";
import { moduleUrl, runOnSmallFs } from "../../tests/support/small_fs.ts";

const CHILD = `
import { directShell } from ${moduleUrl("../shell.ts", import.meta.url)};
import { editFileTool } from ${moduleUrl("./edit_file.ts", import.meta.url)};
import { writeFileTool } from ${moduleUrl("./write_file.ts", import.meta.url)};
import { localWorkspace } from ${moduleUrl("../workspace/local.ts", import.meta.url)};
const root = Deno.args[0];
const original = "keep me\\n".repeat(1000); // 8 KB
await Deno.writeTextFile(root + "/notes.txt", original);
// Fill what is left, so the next copy of notes.txt cannot fit.
const filler = await Deno.open(root + "/filler", { write: true, create: true });
try {
  while (true) await filler.write(new Uint8Array(4096));
} catch {
  // full
}
filler.close();
const ctx = {
  root,
  signal: new AbortController().signal,
  tempDir: root,
  shell: directShell,
  settings: { bashTimeoutMs: 1000 },
  progress() {},
  workspace: localWorkspace(),
};
const edit = await editFileTool.execute(
  { path: "notes.txt", old_string: "keep me\\nkeep me\\nkeep me\\n", new_string: "changed\\n", replace_all: true },
  ctx,
);
const write = await writeFileTool.execute({ path: "notes.txt", content: "new ".repeat(3000) }, ctx);
const names = [];
for await (const e of Deno.readDir(root)) names.push(e.name);
console.log(JSON.stringify({
  edit,
  write,
  intact: (await Deno.readTextFile(root + "/notes.txt")) === original,
  names: names.sort(),
}));
`;

Deno.test({
  name: "a full disk makes edit_file and write_file fail as results and leaves the file intact",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const out = await runOnSmallFs(CHILD, 32768);
    assert.ok(out.success, out.stderr);
    const r = JSON.parse(out.stdout);
    for (const result of [r.edit, r.write]) {
      assert.equal(result.isError, true, JSON.stringify(result));
      assert.match(result.content, /No space left on device/);
    }
    assert.equal(r.intact, true, "notes.txt is unchanged");
    assert.deepEqual(r.names, ["filler", "notes.txt"], "no temporary file is left behind");
  },
});
