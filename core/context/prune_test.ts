import assert from "node:assert/strict";
import { needsPrune, PRUNE_MARKER, pruneText } from "./prune.ts";

Deno.test("results up to 8192 code points are left alone", () => {
  const text = "字".repeat(8192);
  assert.equal(needsPrune(text), false);
  assert.equal(pruneText(text), text);
});

Deno.test("longer results keep a 4096 head and a 1024 tail in code points", () => {
  const text = "😀".repeat(5000) + "x".repeat(3193) + "END";
  assert.equal(needsPrune(text), true);
  const out = pruneText(text);
  const [head, tail] = out.split(`\n${PRUNE_MARKER}\n`);
  assert.equal(Array.from(head).length, 4096);
  assert.equal(head, "😀".repeat(4096));
  assert.equal(Array.from(tail).length, 1024);
  assert.ok(tail.endsWith("END"));
});

/** The definition: code points as `Array.from` counts them. */
function reference(text: string): string {
  const points = Array.from(text);
  return points.slice(0, 4096).join("") + `\n${PRUNE_MARKER}\n` +
    points.slice(points.length - 1024).join("");
}

Deno.test("the pruned form cuts at code points, surrogate pairs and lone surrogates alike", () => {
  const samples = [
    "a".repeat(9000),
    "ab😀".repeat(3000),
    "😀".repeat(4095) + "\ud800" + "x".repeat(5000) + "\udc00" + "😀".repeat(1023),
    "x" + "😀".repeat(8500),
    "工具".repeat(4100) + "😀".repeat(1025),
  ];
  for (const text of samples) assert.equal(pruneText(text), reference(text));
});
