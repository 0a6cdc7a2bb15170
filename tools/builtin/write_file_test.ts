import assert from "node:assert/strict";
import { callTool, createTestWorkspace, within } from "./test_context.ts";
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

Deno.test("write_file refuses a FIFO or device node and leaves it in place", async () => {
  await using ws = await createTestWorkspace();
  if (await ws.fifo("pipe")) {
    const result = await within(
      callTool(writeFileTool, { path: "pipe", content: "x" }, ws.ctx),
      5000,
      "write_file on a FIFO",
    );
    assert.equal(result.isError, true);
    assert.match(result.content, /pipe: it is a FIFO \(named pipe\), not a regular file/);
    assert.ok((await Deno.lstat(ws.path("pipe"))).isFifo, "the FIFO was not replaced");
  }
  // A device node of our own (root only): renaming over it would turn it into a plain file.
  const made = await new Deno.Command("mknod", { args: [ws.path("null"), "c", "1", "3"] })
    .output().then((o) => o.success, () => false);
  if (made) {
    const result = await callTool(writeFileTool, { path: "null", content: "x" }, ws.ctx);
    assert.equal(result.isError, true);
    assert.match(result.content, /null: it is a character device, not a regular file/);
    assert.ok((await Deno.lstat(ws.path("null"))).isCharDevice, "the device was not replaced");
  }
});

Deno.test({
  name: "write_file leaves a read-only file unchanged",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using ws = await createTestWorkspace();
    const path = await ws.write("ro.txt", "keep\n");
    await Deno.chmod(path, 0o444);
    const result = await callTool(writeFileTool, { path: "ro.txt", content: "new" }, ws.ctx);
    assert.equal(result.isError, true);
    assert.match(result.content, /ro\.txt: it is read-only \(mode 444\)/);
    assert.equal(await ws.read("ro.txt"), "keep\n");
  },
});

Deno.test({
  name: "write_file through a dangling symlink creates its target and keeps the link",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using ws = await createTestWorkspace();
    // The permission layer places a write through a dangling link at the link's target.
    await Deno.mkdir(ws.path("real"));
    await Deno.symlink("real/target.txt", ws.path("link.txt"));
    const result = await callTool(writeFileTool, { path: "link.txt", content: "hi\n" }, ws.ctx);
    assert.equal(result.isError, undefined, result.content);
    assert.ok((await Deno.lstat(ws.path("link.txt"))).isSymlink, "the link is still a link");
    assert.equal(await ws.read("real/target.txt"), "hi\n");
    assert.equal(result.meta?.path, ws.path("real/target.txt"));
    // `..` in a link target is taken from the link's real directory, as the kernel does.
    await Deno.mkdir(ws.path("deep/er"), { recursive: true });
    await Deno.symlink(ws.path("deep/er"), ws.path("alias"));
    await Deno.symlink("../up.txt", ws.path("deep/er/rel.txt"));
    await callTool(writeFileTool, { path: "alias/rel.txt", content: "up\n" }, ws.ctx);
    assert.equal(await ws.read("deep/up.txt"), "up\n");
    await assert.rejects(Deno.lstat(ws.path("up.txt")), Deno.errors.NotFound);
  },
});

Deno.test("write_file refuses content with an unpaired surrogate", async () => {
  await using ws = await createTestWorkspace();
  const result = await callTool(writeFileTool, { path: "a.txt", content: "x\udc00y" }, ws.ctx);
  assert.equal(result.isError, true);
  assert.match(result.content, /unpaired UTF-16 surrogate/);
  await assert.rejects(Deno.lstat(ws.path("a.txt")), Deno.errors.NotFound);
});
