import assert from "node:assert/strict";
import { parse } from "smol-toml";
import { locateKey } from "./toml_locate.ts";

const doc = `# header comment
default_model = "deepseek"

[agent]
compact_ratio = 0.8 # trailing comment
notes = """
fake = 1
[not_a_table]
"""

[[providers]]
name = "first"
context_window = 100

[[providers]]
name = "second"
  "context_window" = 200
models = [
  "a",
  "b", # comment
]
headers = { "X-Key" = "v", nested = { deep = 1 } }

[providers.model_overrides."m-1"]
context_window = 5

[permissions]
deny.extra = "dotted"
`;

Deno.test("the locator test document is valid TOML", () => {
  assert.doesNotThrow(() => parse(doc));
});

Deno.test("locateKey finds top-level keys and keys under a table header", () => {
  assert.deepEqual(locateKey(doc, ["default_model"]), { line: 2, column: 1 });
  assert.deepEqual(locateKey(doc, ["agent", "compact_ratio"]), { line: 5, column: 1 });
  assert.deepEqual(locateKey(doc, ["agent"]), { line: 4, column: 1 });
});

Deno.test("locateKey is not fooled by key-like lines inside multi-line strings", () => {
  assert.equal(locateKey(doc, ["agent", "fake"])?.line, 4);
  assert.equal(locateKey(doc, ["not_a_table"]), undefined);
});

Deno.test("locateKey finds the n-th [[providers]] header and the key below it", () => {
  assert.deepEqual(locateKey(doc, ["providers", 0, "context_window"]), { line: 13, column: 1 });
  assert.deepEqual(locateKey(doc, ["providers", 1]), { line: 15, column: 1 });
  assert.deepEqual(locateKey(doc, ["providers", 1, "context_window"]), { line: 17, column: 3 });
  // A missing key falls back to its provider's header.
  assert.deepEqual(locateKey(doc, ["providers", 1, "kind"]), { line: 15, column: 1 });
});

Deno.test("locateKey resolves sub-tables of the current [[providers]] element", () => {
  assert.equal(
    locateKey(doc, ["providers", 1, "model_overrides", "m-1", "context_window"])?.line,
    25,
  );
  assert.equal(locateKey(doc, ["providers", 0, "model_overrides"])?.line, 11);
});

Deno.test("locateKey finds array elements and inline-table keys", () => {
  assert.equal(locateKey(doc, ["providers", 1, "models", 0])?.line, 19);
  assert.equal(locateKey(doc, ["providers", 1, "models", 1])?.line, 20);
  assert.deepEqual(locateKey(doc, ["providers", 1, "headers", "X-Key"]), { line: 22, column: 13 });
  assert.equal(locateKey(doc, ["providers", 1, "headers", "nested", "deep"])?.line, 22);
});

Deno.test("locateKey handles dotted keys", () => {
  assert.equal(locateKey(doc, ["permissions", "deny", "extra"])?.line, 28);
  assert.equal(locateKey(doc, ["permissions", "deny"])?.line, 28);
});

Deno.test("locateKey returns undefined when nothing on the path exists", () => {
  assert.equal(locateKey(doc, ["tools", "enabled"]), undefined);
  assert.equal(locateKey("", ["a"]), undefined);
});

Deno.test("locateKey counts nested arrays of tables per parent element", () => {
  const text = `[[a]]
[[a.b]]
x = 1
[[a]]
[[a.b]]
[[a.b]]
x = 2
`;
  assert.doesNotThrow(() => parse(text));
  assert.equal(locateKey(text, ["a", 0, "b", 0, "x"])?.line, 3);
  assert.equal(locateKey(text, ["a", 1, "b", 1, "x"])?.line, 7);
  assert.equal(locateKey(text, ["a", 1, "b", 0])?.line, 5);
});
