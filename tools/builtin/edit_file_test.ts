import assert from "node:assert/strict";
import { editFileTool } from "./edit_file.ts";
import { callTool, createTestWorkspace, type TestWorkspace, within } from "./test_context.ts";
import { decodeText, encodeText } from "./text_edit.ts";

function utf16(text: string, littleEndian: boolean): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0xfeff, littleEndian);
  for (let i = 0; i < text.length; i++) view.setUint16(2 + i * 2, text.charCodeAt(i), littleEndian);
  return out;
}

async function entries(ws: TestWorkspace, dir = "."): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(ws.path(dir))) names.push(e.name);
  return names.sort();
}

Deno.test("edit_file replaces a unique string and shows the changed lines", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.ts", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n");
  const result = await callTool(
    editFileTool,
    { path: "a.ts", old_string: "five", new_string: "FIVE" },
    ws.ctx,
  );
  assert.equal(result.isError, undefined);
  assert.equal(
    result.content,
    "Edited a.ts: 1 replacement\n" +
      "     2\ttwo\n     3\tthree\n     4\tfour\n     5\tFIVE\n     6\tsix\n     7\tseven\n" +
      "     8\teight",
  );
  assert.equal(await ws.read("a.ts"), "one\ntwo\nthree\nfour\nFIVE\nsix\nseven\neight\n");
  const diff = result.meta?.diff as string;
  assert.match(diff, /^-five$/m);
  assert.match(diff, /^\+FIVE$/m);
  assert.deepEqual(await entries(ws), ["a.ts"], "no temporary file is left behind");
});

Deno.test("edit_file reports zero matches and leaves the file untouched", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.ts", "alpha\nbeta\n");
  const result = await callTool(
    editFileTool,
    { path: "a.ts", old_string: "gamma", new_string: "delta" },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /old_string was not found in the file/);
  assert.equal(await ws.read("a.ts"), "alpha\nbeta\n");
});

Deno.test("edit_file hints at a whitespace-only difference with its line", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.py", "def f():\n\tif x:\n\t\treturn 1\n");
  const result = await callTool(
    editFileTool,
    { path: "a.py", old_string: "    if x:\n        return 1", new_string: "    return 2" },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /differs only in whitespace exists at line 2/);
});

Deno.test("edit_file hints when old_string carries read_file line numbers", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "alpha\nbeta\n");
  const result = await callTool(
    editFileTool,
    { path: "a.txt", old_string: "     1\talpha\n     2\tbeta", new_string: "x" },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /line-number prefixes/);
});

Deno.test("edit_file hints when only line endings differ in a mixed file", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("mixed.txt", "a\r\nb\r\nc\nd\r\n");
  const result = await callTool(
    editFileTool,
    { path: "mixed.txt", old_string: "b\nc\nd", new_string: "x" },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /matches at line 2 if line endings are ignored/);
});

Deno.test("edit_file refuses an ambiguous old_string, naming the count and lines", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "x = 1\ny = 2\nx = 1\n");
  const result = await callTool(
    editFileTool,
    { path: "a.txt", old_string: "x = 1", new_string: "x = 3" },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /matches 2 times \(at lines 1, 3\).*replace_all/);
  assert.equal(await ws.read("a.txt"), "x = 1\ny = 2\nx = 1\n");
  const all = await callTool(
    editFileTool,
    { path: "a.txt", old_string: "x = 1", new_string: "x = 3", replace_all: true },
    ws.ctx,
  );
  assert.match(all.content, /^Edited a\.txt: 2 replacements/);
  assert.equal(await ws.read("a.txt"), "x = 3\ny = 2\nx = 3\n");
});

Deno.test("edit_file refuses identical and empty strings", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "same\n");
  const same = await callTool(
    editFileTool,
    { path: "a.txt", old_string: "same", new_string: "same" },
    ws.ctx,
  );
  assert.equal(same.isError, true);
  assert.match(same.content, /identical/);
  const empty = await callTool(
    editFileTool,
    { path: "a.txt", old_string: "", new_string: "x" },
    ws.ctx,
  );
  assert.equal(empty.isError, true);
  assert.match(empty.content, /old_string is empty/);
});

Deno.test("edit_file matches and writes LF strings as CRLF in a CRLF file", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("win.txt", "first\r\nsecond\r\nthird\r\n");
  const result = await callTool(
    editFileTool,
    { path: "win.txt", old_string: "first\nsecond", new_string: "1st\n2nd\n2.5th" },
    ws.ctx,
  );
  assert.equal(result.isError, undefined);
  assert.equal(await ws.read("win.txt"), "1st\r\n2nd\r\n2.5th\r\nthird\r\n");
});

Deno.test("edit_file keeps a UTF-8 byte-order mark", async () => {
  await using ws = await createTestWorkspace();
  const bom = [0xef, 0xbb, 0xbf];
  await ws.write("bom.txt", new Uint8Array([...bom, ...new TextEncoder().encode("héllo\n")]));
  await callTool(editFileTool, { path: "bom.txt", old_string: "héllo", new_string: "hi" }, ws.ctx);
  const bytes = await Deno.readFile(ws.path("bom.txt"));
  assert.deepEqual([...bytes], [...bom, ...new TextEncoder().encode("hi\n")]);
});

for (const littleEndian of [true, false]) {
  const label = littleEndian ? "UTF-16LE" : "UTF-16BE";
  Deno.test(`edit_file decodes and re-encodes ${label} with its byte-order mark`, async () => {
    await using ws = await createTestWorkspace();
    await ws.write("u16.txt", utf16("naïve line\r\nsecond\r\n", littleEndian));
    const result = await callTool(
      editFileTool,
      { path: "u16.txt", old_string: "naïve line\nsecond", new_string: "naïf\nzweite" },
      ws.ctx,
    );
    assert.equal(result.isError, undefined);
    const bytes = await Deno.readFile(ws.path("u16.txt"));
    assert.deepEqual([...bytes], [...utf16("naïf\r\nzweite\r\n", littleEndian)]);
  });
}

Deno.test("edit_file refuses invalid UTF-8 without a byte-order mark and never rewrites it", async () => {
  await using ws = await createTestWorkspace();
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in Latin-1
  await ws.write("latin1.txt", latin1);
  const result = await callTool(
    editFileTool,
    { path: "latin1.txt", old_string: "caf", new_string: "tea" },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /not valid UTF-8.*convert it/);
  assert.deepEqual([...await Deno.readFile(ws.path("latin1.txt"))], [...latin1]);
});

Deno.test("edit_file keeps the file's permission bits", async () => {
  await using ws = await createTestWorkspace();
  const path = await ws.write("run.sh", "#!/bin/sh\necho hi\n");
  await Deno.chmod(path, 0o751);
  await callTool(editFileTool, { path: "run.sh", old_string: "hi", new_string: "bye" }, ws.ctx);
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o751);
  assert.equal(await ws.read("run.sh"), "#!/bin/sh\necho bye\n");
});

Deno.test("edit_file edits the target of a symlink, keeping the link", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("real.txt", "old\n");
  await Deno.symlink("real.txt", ws.path("link.txt"));
  await callTool(editFileTool, { path: "link.txt", old_string: "old", new_string: "new" }, ws.ctx);
  assert.equal(await ws.read("real.txt"), "new\n");
  assert.ok((await Deno.lstat(ws.path("link.txt"))).isSymlink);
});

Deno.test("edit_file explains a missing file and a directory", async () => {
  await using ws = await createTestWorkspace();
  await Deno.mkdir(ws.path("dir"));
  const missing = await callTool(
    editFileTool,
    { path: "nope.txt", old_string: "a", new_string: "b" },
    ws.ctx,
  );
  assert.equal(missing.isError, true);
  assert.match(missing.content, /does not exist\. Use write_file/);
  const dir = await callTool(
    editFileTool,
    { path: "dir", old_string: "a", new_string: "b" },
    ws.ctx,
  );
  assert.equal(dir.isError, true);
  assert.match(dir.content, /is a directory/);
});

Deno.test("edit_file declares an Edit access that reads and writes its path", () => {
  assert.deepEqual(
    editFileTool.access?.({ path: "a.txt", old_string: "a", new_string: "b", replace_all: false }),
    { rule: "Edit", reads: ["a.txt"], writes: ["a.txt"] },
  );
});

Deno.test("decodeText and encodeText round-trip every supported encoding", () => {
  const samples: Uint8Array[] = [
    new TextEncoder().encode("plain ✓\n"),
    new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("bom ✓\n")]),
    utf16("le ✓\n", true),
    utf16("be ✓\n", false),
  ];
  for (const bytes of samples) {
    const decoded = decodeText(bytes);
    assert.ok(decoded.ok);
    const { text, encoding, bom } = decoded.value;
    assert.deepEqual([...encodeText(text, encoding, bom)], [...bytes]);
  }
  const binary = decodeText(new Uint8Array([0x61, 0x00, 0x62]));
  assert.equal(binary.ok, false);
});

Deno.test("edit_file refuses a FIFO or device instead of blocking, and leaves it in place", async () => {
  await using ws = await createTestWorkspace();
  const edit = { old_string: "a", new_string: "b" };
  if (await ws.fifo("pipe")) {
    // Reading a FIFO with no writer blocks forever; the call must not.
    const result = await within(
      callTool(editFileTool, { path: "pipe", ...edit }, ws.ctx),
      5000,
      "edit_file on a FIFO",
    );
    assert.equal(result.isError, true);
    assert.match(result.content, /pipe: it is a FIFO \(named pipe\), not a regular file/);
    assert.ok((await Deno.lstat(ws.path("pipe"))).isFifo, "the FIFO is still a FIFO");
  }
  if (Deno.build.os !== "windows") {
    // /dev/zero never ends: reading it whole would exhaust memory.
    const result = await callTool(editFileTool, { path: "/dev/zero", ...edit }, ws.ctx);
    assert.equal(result.isError, true);
    assert.match(result.content, /it is a character device, not a regular file/);
  }
});

Deno.test({
  name: "edit_file leaves a read-only file unchanged",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using ws = await createTestWorkspace();
    const path = await ws.write("ro.txt", "hello\n");
    await Deno.chmod(path, 0o444);
    const result = await callTool(
      editFileTool,
      { path: "ro.txt", old_string: "hello", new_string: "bye" },
      ws.ctx,
    );
    assert.equal(result.isError, true);
    assert.match(result.content, /ro\.txt: it is read-only \(mode 444\)/);
    assert.match(result.content, /chmod/);
    assert.equal(await ws.read("ro.txt"), "hello\n");
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o444);
  },
});

Deno.test("edit_file refuses a new_string with an unpaired surrogate", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "abc\n");
  const result = await callTool(
    editFileTool,
    { path: "a.txt", old_string: "b", new_string: "\ud83d" },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /unpaired UTF-16 surrogate/);
  assert.equal(await ws.read("a.txt"), "abc\n", "no U+FFFD is written in its place");
});

Deno.test("edit_file lists each matching line once when old_string repeats within a line", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "x x x\ny\nx\n");
  const result = await callTool(
    editFileTool,
    { path: "a.txt", old_string: "x", new_string: "z" },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /matches 4 times \(at lines 1, 3\)/);
});
