import assert from "node:assert/strict";
import { repairTruncatedJson } from "./tool_call_repair.ts";

Deno.test("repair closes brackets after a complete last value", () => {
  assert.equal(repairTruncatedJson('{"path":"a.ts"'), '{"path":"a.ts"}');
  assert.equal(repairTruncatedJson('{"a":{"b":[1,2,"x"]'), '{"a":{"b":[1,2,"x"]}}');
  assert.equal(repairTruncatedJson('{"a":[true, null'), '{"a":[true, null]}');
  assert.equal(repairTruncatedJson('{"limit":30 \n'), '{"limit":30}');
  assert.equal(repairTruncatedJson('{"s":"say \\"hi\\""'), '{"s":"say \\"hi\\""}');
});

Deno.test("repair returns text that already parses unchanged", () => {
  assert.equal(repairTruncatedJson('{"a":1}'), '{"a":1}');
});

Deno.test("repair refuses every ambiguous cut", () => {
  for (
    const text of [
      '{"path":"a.t', // inside a string
      '{"limit":3', // a number may continue
      '{"ok":tru', // a cut literal
      '{"path":', // no value yet
      '{"path"', // a key without its value
      '{"a":1,', // another member was coming
      "{", // nothing written
      '["a"', // not an object
      "", // nothing at all
      '{"a":1}}', // malformed, not truncated
      '{"a" 1', // malformed
    ]
  ) {
    assert.equal(repairTruncatedJson(text), undefined, text);
  }
});
