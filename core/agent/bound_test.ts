import assert from "node:assert/strict";
import { boundText, MAX_TOOL_CONTENT_BYTES } from "./bound.ts";

const bytes = (s: string) => new TextEncoder().encode(s).length;

Deno.test("boundText leaves text within the limit untouched", () => {
  const text = "a".repeat(MAX_TOOL_CONTENT_BYTES);
  assert.equal(boundText(text), text);
});

Deno.test("boundText keeps head and tail and never exceeds the limit", () => {
  const text = `HEAD${"x".repeat(100_000)}TAIL`;
  const out = boundText(text);
  assert.ok(bytes(out) <= MAX_TOOL_CONTENT_BYTES);
  assert.ok(out.startsWith("HEAD"));
  assert.ok(out.endsWith("TAIL"));
  assert.match(out, /100008 bytes in total/);
});

Deno.test("boundText never splits a multi-byte character", () => {
  const text = "数据".repeat(20_000); // 6 bytes per repetition
  const out = boundText(text, 1001);
  assert.ok(bytes(out) <= 1001);
  assert.ok(!out.includes("\uFFFD"));
  const [head, tail] = out.split(/\n\[\.\.\. .* \.\.\.\]\n/);
  assert.match(head, /^(数据)*数?$/);
  assert.match(tail, /^据?(数据)*$/);
});
