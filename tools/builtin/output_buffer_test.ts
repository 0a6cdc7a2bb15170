import assert from "node:assert/strict";
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

Deno.test("HeadTailBuffer keeps the complete output up to keepBytes", () => {
  const buffer = new HeadTailBuffer({ headBytes: 4, tailBytes: 4, keepBytes: 12 });
  const parts = ["ab", "cd", "ef", "gh", "ij", "klmnop"];
  for (const part of parts) buffer.push(encode(part));
  assert.equal(buffer.text(), "abcd\n[... 8 bytes omitted ...]\nmnop");
  assert.equal(buffer.keptBytes, 12);
  assert.equal(buffer.keptText(), "abcdefghijkl");
  const all = new HeadTailBuffer({ headBytes: 4, tailBytes: 4, keepBytes: 100 });
  for (const part of parts) all.push(encode(part));
  assert.equal(all.keptText(), parts.join(""));
  assert.equal(new HeadTailBuffer({ headBytes: 4, tailBytes: 4 }).keptText(), "");
});

Deno.test("HeadTailBuffer keeps its own copy of pushed chunks", () => {
  const buffer = new HeadTailBuffer({ headBytes: 1, tailBytes: 1, keepBytes: 10 });
  const chunk = encode("abc");
  buffer.push(chunk);
  chunk.fill(0x7a); // a reader reusing its buffer
  buffer.push(encode("def"));
  assert.equal(buffer.keptText(), "abcdef");
});

Deno.test("HeadTailBuffer never splits a UTF-8 character at the keep cap", () => {
  const buffer = new HeadTailBuffer({ headBytes: 2, tailBytes: 2, keepBytes: 4 });
  buffer.push(encode("ab€cd")); // € is 3 bytes: the cap falls inside it
  assert.equal(buffer.keptText(), "ab");
  const exact = new HeadTailBuffer({ headBytes: 2, tailBytes: 2, keepBytes: 5 });
  exact.push(encode("ab€"));
  assert.equal(exact.keptText(), "ab€");
});
