import assert from "node:assert/strict";
import { join } from "node:path";
import { HeadTailBuffer } from "./output_buffer.ts";

const encode = (s: string) => new TextEncoder().encode(s);

Deno.test("HeadTailBuffer keeps everything while it fits", () => {
  const buffer = new HeadTailBuffer({ headBytes: 8, tailBytes: 8 });
  buffer.push(encode("hello "));
  buffer.push(encode("world"));
  assert.equal(buffer.text(), "hello world");
  assert.equal(buffer.omitted, 0);
});

Deno.test("HeadTailBuffer keeps the head and tail around an omission marker", () => {
  const buffer = new HeadTailBuffer({ headBytes: 4, tailBytes: 4 });
  for (const part of ["0123", "4567", "89", "abcdef"]) buffer.push(encode(part));
  assert.equal(buffer.total, 16);
  assert.equal(buffer.text(), "0123\n[... 8 bytes omitted ...]\ncdef");
  assert.equal(buffer.lastLine(), "cdef");
});

Deno.test("HeadTailBuffer never splits a UTF-8 character at a cut", () => {
  const buffer = new HeadTailBuffer({ headBytes: 4, tailBytes: 4 });
  buffer.push(encode("aé€xxxxxxxx€é"));
  const text = buffer.text();
  assert.ok(!text.includes("\uFFFD"), text);
  assert.match(text, /^aé\n\[\.\.\. \d+ bytes omitted \.\.\.\]\né$/);
});

Deno.test("HeadTailBuffer spills the complete output to a file once it overflows", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "out.log");
    const buffer = new HeadTailBuffer({
      headBytes: 4,
      tailBytes: 4,
      openSpill: () => Deno.open(path, { write: true, createNew: true }),
    });
    const parts = ["ab", "cd", "ef", "gh", "ij", "klmnop"];
    for (const part of parts) buffer.push(encode(part));
    assert.equal(await buffer.closeSpill(), true);
    assert.equal(await Deno.readTextFile(path), parts.join(""));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
