import assert from "node:assert/strict";
import { callTool, createTestWorkspace } from "./test_context.ts";
import { writeFileTool } from "./write_file.ts";

Deno.test("write_file creates a file and its missing parent directories", async () => {
  await using ws = await createTestWorkspace();
  const result = await callTool(
    writeFileTool,
    { path: "deep/er/new.txt", content: "héllo\n" },
    ws.ctx,
  );
  assert.equal(result.isError, undefined);
  assert.equal(result.content, "Created deep/er/new.txt (7 bytes)");
  assert.equal(result.meta?.created, true);
  assert.equal(await ws.read("deep/er/new.txt"), "héllo\n");
  assert.match(result.meta?.diff as string, /^\+héllo$/m);
});

Deno.test("write_file overwrites atomically, keeping the mode and leaving no temp file", async () => {
  await using ws = await createTestWorkspace();
  const path = await ws.write("tool.sh", "old\n");
  await Deno.chmod(path, 0o700);
  const result = await callTool(writeFileTool, { path: "tool.sh", content: "new\n" }, ws.ctx);
  assert.equal(result.content, "Overwrote tool.sh (4 bytes)");
  assert.equal(await ws.read("tool.sh"), "new\n");
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o700);
  const diff = result.meta?.diff as string;
  assert.match(diff, /^-old$/m);
  assert.match(diff, /^\+new$/m);
  const names: string[] = [];
  for await (const e of Deno.readDir(ws.root)) names.push(e.name);
  assert.deepEqual(names, ["tool.sh"]);
});

Deno.test("write_file accepts absolute paths and writes through symlinks", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("target.txt", "a");
  await Deno.symlink(ws.path("target.txt"), ws.path("link.txt"));
  await callTool(writeFileTool, { path: ws.path("link.txt"), content: "b" }, ws.ctx);
  assert.equal(await ws.read("target.txt"), "b");
  assert.ok((await Deno.lstat(ws.path("link.txt"))).isSymlink);
});

Deno.test("write_file refuses to replace a directory", async () => {
  await using ws = await createTestWorkspace();
  await Deno.mkdir(ws.path("dir"));
  const result = await callTool(writeFileTool, { path: "dir", content: "x" }, ws.ctx);
  assert.equal(result.isError, true);
  assert.match(result.content, /it is a directory/);
});

Deno.test("write_file reports a parent that is a file as an error result", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("file", "x");
  const result = await callTool(writeFileTool, { path: "file/child.txt", content: "x" }, ws.ctx);
  assert.equal(result.isError, true);
  assert.match(result.content, /^Cannot write file\/child\.txt/);
});

Deno.test("write_file declares a Write access for its path", () => {
  assert.deepEqual(
    writeFileTool.access?.({ path: "a.txt", content: "" }),
    { rule: "Write", writes: ["a.txt"] },
  );
});
