import assert from "node:assert/strict";
import { multiEditTool } from "./multi_edit.ts";
import { callTool, createTestWorkspace } from "./test_context.ts";

Deno.test("multi_edit applies edits in order, each on the previous result", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.ts", "let a = 1;\nlet b = a;\n");
  const result = await callTool(multiEditTool, {
    path: "a.ts",
    edits: [
      { old_string: "let a = 1;", new_string: "let renamed = 1;" },
      // Only exists after the first edit.
      { old_string: "renamed = 1", new_string: "renamed = 2" },
      { old_string: "a;", new_string: "renamed;" },
    ],
  }, ws.ctx);
  assert.equal(result.isError, undefined);
  assert.equal(result.content, "Edited a.ts: 3 edits, 3 replacements");
  assert.equal(await ws.read("a.ts"), "let renamed = 2;\nlet b = renamed;\n");
  assert.match(result.meta?.diff as string, /^\+let b = renamed;$/m);
});

Deno.test("multi_edit is all or nothing and names the failing edit", async () => {
  await using ws = await createTestWorkspace();
  const original = "one\ntwo\ntwo\n";
  await ws.write("a.txt", original);
  const ambiguous = await callTool(multiEditTool, {
    path: "a.txt",
    edits: [
      { old_string: "one", new_string: "1" },
      { old_string: "two", new_string: "2" },
    ],
  }, ws.ctx);
  assert.equal(ambiguous.isError, true);
  assert.match(ambiguous.content, /^edits\[1\] failed: old_string matches 2 times/);
  assert.match(ambiguous.content, /No edits were applied; a\.txt is unchanged\.$/);
  assert.equal(await ws.read("a.txt"), original);

  const missing = await callTool(multiEditTool, {
    path: "a.txt",
    edits: [
      { old_string: "one", new_string: "1" },
      { old_string: "two", new_string: "2", replace_all: true },
      { old_string: "three", new_string: "3" },
    ],
  }, ws.ctx);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /^edits\[2\] failed: old_string was not found/);
  assert.equal(await ws.read("a.txt"), original);
});

Deno.test("multi_edit keeps CRLF line endings across edits", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("win.txt", "a\r\nb\r\nc\r\n");
  await callTool(multiEditTool, {
    path: "win.txt",
    edits: [
      { old_string: "a\nb", new_string: "A\nB" },
      { old_string: "B\nc", new_string: "B\nC\nD" },
    ],
  }, ws.ctx);
  assert.equal(await ws.read("win.txt"), "A\r\nB\r\nC\r\nD\r\n");
});

Deno.test("multi_edit requires at least one edit", () => {
  const parsed = multiEditTool.parse!({ path: "a.txt", edits: [] });
  assert.equal(parsed.ok, false);
});

Deno.test("multi_edit declares an Edit access that reads and writes its path", () => {
  assert.deepEqual(
    multiEditTool.access?.({ path: "a.txt", edits: [] }),
    { rule: "Edit", reads: ["a.txt"], writes: ["a.txt"] },
  );
});

Deno.test("multi_edit whose edits cancel out reports it and does not rewrite the file", async () => {
  await using ws = await createTestWorkspace();
  const path = await ws.write("a.txt", "one\ntwo\n");
  const before = await Deno.stat(path);
  const result = await callTool(multiEditTool, {
    path: "a.txt",
    edits: [
      { old_string: "one", new_string: "ONE" },
      { old_string: "ONE", new_string: "one" },
    ],
  }, ws.ctx);
  assert.equal(result.isError, true);
  assert.match(result.content, /cancel each other out/);
  const after = await Deno.stat(path);
  assert.equal(after.ino, before.ino, "the file was not replaced");
  assert.equal(await ws.read("a.txt"), "one\ntwo\n");
});
