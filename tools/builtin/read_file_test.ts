import assert from "node:assert/strict";
import { MAX_TEXT_FILE_BYTES } from "../fs/mod.ts";
import { MAX_LINE_CHARS, MAX_OUTPUT_BYTES, readFileTool } from "./read_file.ts";
import { callTool, createTestWorkspace } from "./test_context.ts";
import type { ReadGuard } from "../types.ts";

function numbered(count: number, text: (i: number) => string = String): string {
  return Array.from({ length: count }, (_, i) => text(i + 1)).join("\n") + "\n";
}

Deno.test("read_file numbers lines exactly like cat -n", async () => {
  await using ws = await createTestWorkspace();
  const path = await ws.write("src/a.ts", "first\n\n  indented\tand tab\nlast");
  const result = await callTool(readFileTool, { path: "src/a.ts" }, ws.ctx);
  const cat = await new Deno.Command("cat", { args: ["-n", path] }).output();
  assert.equal(result.isError, undefined);
  assert.equal(result.content + "\n", new TextDecoder().decode(cat.stdout) + "\n");
});

Deno.test("read_file accepts absolute paths", async () => {
  await using ws = await createTestWorkspace();
  const path = await ws.write("a.txt", "hello\n");
  const result = await callTool(readFileTool, { path }, ws.ctx);
  assert.equal(result.content, "     1\thello");
});

Deno.test("read_file returns 2000 lines by default and says where to continue", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("big.txt", numbered(5000));
  const result = await callTool(readFileTool, { path: "big.txt" }, ws.ctx);
  const lines = result.content.split("\n");
  assert.equal(lines.length, 2001);
  assert.equal(lines[0], "     1\t1");
  assert.equal(lines[1999], "  2000\t2000");
  assert.equal(lines[2000], "[... 3000 more lines; call read_file with offset=2001 to continue]");
});

Deno.test("read_file reads a window given by offset and limit", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("big.txt", numbered(100, (i) => `line ${i}`));
  const middle = await callTool(readFileTool, { path: "big.txt", offset: 10, limit: 3 }, ws.ctx);
  assert.equal(
    middle.content,
    "    10\tline 10\n    11\tline 11\n    12\tline 12\n" +
      "[... 88 more lines; call read_file with offset=13 to continue]",
  );
  const end = await callTool(readFileTool, { path: "big.txt", offset: 99 }, ws.ctx);
  assert.equal(end.content, "    99\tline 99\n   100\tline 100");
});

Deno.test("read_file counts an unterminated last line", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "a\nb\nc");
  const result = await callTool(readFileTool, { path: "a.txt", limit: 1 }, ws.ctx);
  assert.equal(
    result.content,
    "     1\ta\n[... 2 more lines; call read_file with offset=2 to continue]",
  );
});

Deno.test("read_file stops a window at the output budget with an exact continuation offset", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("wide.txt", numbered(200, (i) => `${i}:${"x".repeat(1000)}`));
  const result = await callTool(readFileTool, { path: "wide.txt" }, ws.ctx);
  assert.ok(new TextEncoder().encode(result.content).length <= MAX_OUTPUT_BYTES + 200);
  const lines = result.content.split("\n");
  const shown = lines.length - 1;
  assert.ok(shown > 10 && shown < 200);
  assert.equal(
    lines.at(-1),
    `[... ${200 - shown} more lines; call read_file with offset=${shown + 1} to continue]`,
  );
  const next = await callTool(readFileTool, { path: "wide.txt", offset: shown + 1 }, ws.ctx);
  assert.ok(next.content.startsWith(`${String(shown + 1).padStart(6)}\t${shown + 1}:`));
});

Deno.test("read_file truncates very long lines with a marker", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("min.js", "a".repeat(MAX_LINE_CHARS + 500) + "\nshort\n");
  const result = await callTool(readFileTool, { path: "min.js" }, ws.ctx);
  const [first, second] = result.content.split("\n");
  assert.equal(
    first,
    `     1\t${"a".repeat(MAX_LINE_CHARS)} [... line truncated, 500 more characters]`,
  );
  assert.equal(second, "     2\tshort");
});

Deno.test("read_file strips CRLF line endings", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("win.txt", "one\r\ntwo\r\n");
  const result = await callTool(readFileTool, { path: "win.txt" }, ws.ctx);
  assert.equal(result.content, "     1\tone\n     2\ttwo");
});

Deno.test("read_file reports binary files by size instead of their bytes", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("blob.bin", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0x14, 0x00, 0x41]));
  const nul = await callTool(readFileTool, { path: "blob.bin" }, ws.ctx);
  assert.equal(nul.isError, undefined);
  assert.match(nul.content, /^blob\.bin is a binary file \(9 B\)/);
  const noise = new Uint8Array(4096).map((_, i) => 0x80 + (i * 7) % 64);
  await ws.write("noise.bin", noise);
  const invalid = await callTool(readFileTool, { path: "noise.bin" }, ws.ctx);
  assert.match(invalid.content, /^noise\.bin is a binary file \(4\.0 KiB\)/);
});

Deno.test("read_file decodes UTF-16 files with a byte-order mark", async () => {
  await using ws = await createTestWorkspace();
  const text = "héllo\nwörld\n";
  const bytes = new Uint8Array(2 + text.length * 2);
  bytes.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i++) {
    bytes[2 + i * 2] = text.charCodeAt(i) & 0xff;
    bytes[3 + i * 2] = text.charCodeAt(i) >> 8;
  }
  await ws.write("utf16.txt", bytes);
  const result = await callTool(readFileTool, { path: "utf16.txt" }, ws.ctx);
  assert.equal(result.content, "     1\théllo\n     2\twörld");
});

Deno.test("read_file says an empty file is empty", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("empty.txt", "");
  const result = await callTool(readFileTool, { path: "empty.txt" }, ws.ctx);
  assert.equal(result.isError, undefined);
  assert.equal(result.content, "empty.txt is empty (0 lines).");
});

Deno.test("read_file explains missing files, directories and offsets past the end", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("dir/a.txt", "a\nb\n");
  const missing = await callTool(readFileTool, { path: "nope.txt" }, ws.ctx);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /File not found: nope\.txt.*glob/);
  const dir = await callTool(readFileTool, { path: "dir" }, ws.ctx);
  assert.equal(dir.isError, true);
  assert.match(dir.content, /dir is a directory.*Use ls/);
  const past = await callTool(readFileTool, { path: "dir/a.txt", offset: 5 }, ws.ctx);
  assert.equal(past.isError, true);
  assert.match(past.content, /offset 5 is past the end of dir\/a\.txt, which has 2 lines/);
});

Deno.test("read_file refuses huge files without a window but reads a window of them", async () => {
  await using ws = await createTestWorkspace();
  const line = "0123456789".repeat(10) + "\n";
  const count = Math.ceil(MAX_TEXT_FILE_BYTES / line.length) + 10;
  await ws.write("huge.log", line.repeat(count));
  const refused = await callTool(readFileTool, { path: "huge.log" }, ws.ctx);
  assert.equal(refused.isError, true);
  assert.match(refused.content, /huge\.log is 10\.0 MiB.*offset and limit/);
  const window = await callTool(readFileTool, { path: "huge.log", offset: 3, limit: 2 }, ws.ctx);
  const lines = window.content.split("\n");
  assert.deepEqual(lines.slice(0, 2), [`     3\t${line.trim()}`, `     4\t${line.trim()}`]);
  assert.equal(lines[2], "[... more lines; call read_file with offset=5 to continue]");
});

Deno.test("read_file declares a Read access for its path", () => {
  assert.deepEqual(readFileTool.access?.({ path: "a.txt" }), { rule: "Read", reads: ["a.txt"] });
});

Deno.test("read_file cuts a long line between characters, never inside a surrogate pair", async () => {
  await using ws = await createTestWorkspace();
  // An odd prefix puts the 2000-unit cut in the middle of an emoji (two UTF-16 units).
  await ws.write("emoji.txt", `a${"😀".repeat(3000)}\r\nnext\n`);
  const result = await callTool(readFileTool, { path: "emoji.txt" }, ws.ctx);
  assert.equal(result.isError, undefined);
  assert.ok(result.content.isWellFormed(), "no unpaired surrogate is sent to the provider");
  const [first, second] = result.content.split("\n");
  assert.equal(first, `     1\ta${"😀".repeat(999)} [... line truncated, 2001 more characters]`);
  assert.equal(second, "     2\tnext");
});

Deno.test("read_file names the kind of a non-regular file it refuses", async () => {
  await using ws = await createTestWorkspace();
  const fifo = await ws.fifo("pipe");
  if (fifo) {
    const result = await callTool(readFileTool, { path: "pipe" }, ws.ctx);
    assert.equal(result.isError, true);
    assert.match(result.content, /pipe: it is a FIFO \(named pipe\), not a regular file/);
  }
});

Deno.test("read_file checks the file it opens against the read rules, through symlinks", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("app/.env", "STRIPE_KEY=sk_live_1\n");
  await Deno.symlink("app/.env", ws.path("k"));
  const readGuard: ReadGuard = {
    canonical: (path) => Deno.realPath(path),
    blocked: (path) => path.endsWith("/.env") ? 'deny rule "Read(**/.env)"' : undefined,
  };
  const result = await callTool(readFileTool, { path: "k" }, ws.context({ readGuard }));
  assert.equal(result.isError, true);
  assert.equal(result.content, 'Cannot read k: the deny rule "Read(**/.env)" denies reading it.');
});
