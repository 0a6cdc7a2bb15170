import assert from "node:assert/strict";
import { join } from "node:path";
import { copyThenRemove, moveFileTool } from "./move_file.ts";
import { callTool, createTestWorkspace, within } from "./test_context.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A directory on another file system than the temp dir, when the machine has one. */
async function otherDevice(): Promise<string | undefined> {
  try {
    const shm = await Deno.stat("/dev/shm");
    const tmp = await Deno.stat(await Deno.realPath(Deno.env.get("TMPDIR") ?? "/tmp"));
    return shm.isDirectory && shm.dev !== tmp.dev ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
}

const crossDeviceDir = await otherDevice();

Deno.test("move_file renames a file into a new directory", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "content");
  const result = await callTool(
    moveFileTool,
    { source: "a.txt", destination: "new/dir/b.txt" },
    ws.ctx,
  );
  assert.equal(result.isError, undefined);
  assert.equal(result.content, "Moved a.txt to new/dir/b.txt");
  assert.equal(await ws.read("new/dir/b.txt"), "content");
  assert.equal(await exists(ws.path("a.txt")), false);
});

Deno.test("move_file refuses to overwrite unless asked", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "new");
  await ws.write("b.txt", "old");
  const refused = await callTool(moveFileTool, { source: "a.txt", destination: "b.txt" }, ws.ctx);
  assert.equal(refused.isError, true);
  assert.match(refused.content, /already exists\. Set overwrite to true/);
  assert.equal(await ws.read("b.txt"), "old");
  const forced = await callTool(
    moveFileTool,
    { source: "a.txt", destination: "b.txt", overwrite: true },
    ws.ctx,
  );
  assert.equal(forced.content, "Moved a.txt to b.txt (replaced the existing file)");
  assert.equal(await ws.read("b.txt"), "new");
});

Deno.test("move_file moves directories but never into themselves or onto a directory", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("pkg/src/a.ts", "a");
  await ws.write("pkg/b.ts", "b");
  await Deno.mkdir(ws.path("existing"));
  const inside = await callTool(moveFileTool, { source: "pkg", destination: "pkg/sub" }, ws.ctx);
  assert.equal(inside.isError, true);
  assert.match(inside.content, /into itself/);
  const ontoDir = await callTool(
    moveFileTool,
    { source: "pkg", destination: "existing", overwrite: true },
    ws.ctx,
  );
  assert.equal(ontoDir.isError, true);
  assert.match(ontoDir.content, /existing directory.*existing\/pkg/);
  const moved = await callTool(moveFileTool, { source: "pkg", destination: "lib/pkg" }, ws.ctx);
  assert.equal(moved.isError, undefined);
  assert.equal(await ws.read("lib/pkg/src/a.ts"), "a");
  assert.equal(await ws.read("lib/pkg/b.ts"), "b");
});

Deno.test("move_file reports a missing source and a no-op move", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "x");
  const missing = await callTool(moveFileTool, { source: "nope", destination: "x" }, ws.ctx);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /nope: it does not exist/);
  const same = await callTool(moveFileTool, { source: "a.txt", destination: "./a.txt" }, ws.ctx);
  assert.equal(same.isError, true);
  assert.match(same.content, /same path/);
});

Deno.test({
  name: "move_file copies and removes across file systems, keeping modes and symlinks",
  ignore: crossDeviceDir === undefined,
  async fn() {
    await using ws = await createTestWorkspace();
    const source = await Deno.makeTempDir({ dir: crossDeviceDir, prefix: "reasonix-move-" });
    try {
      await Deno.writeTextFile(join(source, "run.sh"), "#!/bin/sh\n");
      await Deno.chmod(join(source, "run.sh"), 0o755);
      await Deno.mkdir(join(source, "nested"));
      await Deno.writeTextFile(join(source, "nested", "data.txt"), "data");
      await Deno.symlink("nested/data.txt", join(source, "link"));
      await ws.write("dest/old.txt", "keep");
      const result = await callTool(
        moveFileTool,
        { source, destination: "dest/moved" },
        ws.ctx,
      );
      assert.equal(result.isError, undefined, result.content);
      assert.equal(await exists(source), false);
      assert.equal(await ws.read("dest/moved/nested/data.txt"), "data");
      assert.equal((await Deno.stat(ws.path("dest/moved/run.sh"))).mode! & 0o777, 0o755);
      assert.equal(await Deno.readLink(ws.path("dest/moved/link")), "nested/data.txt");
      assert.equal(await ws.read("dest/old.txt"), "keep");

      const file = join(crossDeviceDir!, `reasonix-move-${crypto.randomUUID()}.txt`);
      await Deno.writeTextFile(file, "new");
      const replaced = await callTool(
        moveFileTool,
        { source: file, destination: "dest/old.txt", overwrite: true },
        ws.ctx,
      );
      assert.equal(replaced.isError, undefined, replaced.content);
      assert.equal(await ws.read("dest/old.txt"), "new");
      assert.equal(await exists(file), false);
    } finally {
      await Deno.remove(source, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test("move_file declares Edit access to both ends and the rename itself", () => {
  assert.deepEqual(
    moveFileTool.access?.({ source: "a", destination: "b", overwrite: false }),
    { rule: "Edit", writes: ["a", "b"], moves: [{ from: "a", to: "b" }] },
  );
});

Deno.test("move_file refuses to move the workspace root or a folder containing it", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "a");
  for (const source of [".", "..", ws.root]) {
    const result = await callTool(
      moveFileTool,
      { source, destination: join(ws.root, "..", "elsewhere") },
      ws.ctx,
    );
    assert.equal(result.isError, true, source);
    assert.match(result.content, /is the workspace root or contains it/);
  }
  assert.equal(await ws.read("a.txt"), "a", "the workspace is still in place");
});

Deno.test({
  name: "move_file onto the same file through a symlinked folder or a hard link is refused",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using ws = await createTestWorkspace();
    await ws.write("real/c.txt", "c");
    await Deno.symlink("real", ws.path("alias"));
    const same = await callTool(
      moveFileTool,
      { source: "real/c.txt", destination: "alias/c.txt", overwrite: true },
      ws.ctx,
    );
    assert.equal(same.isError, true);
    assert.match(same.content, /same path \(alias\/c\.txt reaches real\/c\.txt/);
    await ws.write("h1", "h");
    await Deno.link(ws.path("h1"), ws.path("h2"));
    // rename(2) between two links to one file "succeeds" and changes nothing.
    const linked = await callTool(
      moveFileTool,
      { source: "h1", destination: "h2", overwrite: true },
      ws.ctx,
    );
    assert.equal(linked.isError, true);
    assert.match(linked.content, /h1 and h2 are hard links to the same file/);
    assert.ok(await exists(ws.path("h1")) && await exists(ws.path("h2")));
  },
});

Deno.test({
  name: "move_file refuses moving a directory into itself through a symlink",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using ws = await createTestWorkspace();
    await ws.write("d/sub/f.txt", "f");
    await Deno.symlink(ws.path("d/sub"), ws.path("inside"));
    const result = await callTool(moveFileTool, { source: "d", destination: "inside/d2" }, ws.ctx);
    assert.equal(result.isError, true);
    assert.equal(result.content, "Cannot move directory d into itself (inside/d2).");
    assert.equal(await ws.read("d/sub/f.txt"), "f");
  },
});

Deno.test("move_file names the destination when its parent is a file", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "a");
  await ws.write("file.txt", "f");
  const result = await callTool(
    moveFileTool,
    { source: "a.txt", destination: "file.txt/a.txt" },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /a component of file\.txt\/a\.txt is not a directory/);
  assert.equal(await ws.read("a.txt"), "a");
});

Deno.test("copyThenRemove refuses a FIFO instead of blocking and keeps the source", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("tree/a.txt", "a");
  if (!(await ws.fifo("tree/pipe"))) return;
  // Copying a FIFO's content blocks until a writer appears, which may be never.
  const copy = copyThenRemove(ws.path("tree"), ws.path("moved"), {
    signal: ws.ctx.signal,
    workspace: ws.ctx.workspace,
  });
  await assert.rejects(within(copy, 5000, "copying a FIFO"), /a FIFO \(named pipe\)/);
  assert.equal(await ws.read("tree/a.txt"), "a");
  assert.ok((await Deno.lstat(ws.path("tree/pipe"))).isFifo);
  assert.deepEqual([...Deno.readDirSync(ws.root)].map((e) => e.name), ["tree"], "no leftovers");
});
