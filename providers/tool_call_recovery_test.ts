import assert from "node:assert/strict";
import { findToolCallsInText, recoverToolCalls } from "./tool_call_recovery.ts";

const NAMES = ["read_file", "grep"];

Deno.test("recovery reads DeepSeek V3.1 and V3 special-token markup", () => {
  const v31 = "Let me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>" +
    '{"path":"a.ts"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>grep<｜tool▁sep｜>{"pattern":"x"}' +
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
  assert.deepEqual(findToolCallsInText(v31, NAMES), [
    { name: "read_file", arguments: '{"path":"a.ts"}' },
    { name: "grep", arguments: '{"pattern":"x"}' },
  ]);
  const v3 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>grep\n```json\n" +
    '{"pattern":"TODO"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
  assert.deepEqual(findToolCallsInText(v3, NAMES), [
    { name: "grep", arguments: '{"pattern":"TODO"}' },
  ]);
  const ascii = '<|tool_call_begin|>read_file<|tool_sep|>{"path":"b"}<|tool_call_end|>';
  assert.deepEqual(findToolCallsInText(ascii, NAMES), [
    { name: "read_file", arguments: '{"path":"b"}' },
  ]);
});

Deno.test("recovery reads DSML invoke blocks with typed parameters", () => {
  const text = '<｜DSML｜function_calls>\n<｜DSML｜invoke name="grep">\n' +
    '<｜DSML｜parameter name="pattern" string="true">a "b"</｜DSML｜parameter>\n' +
    '<｜DSML｜parameter name="limit" string="false">5</｜DSML｜parameter>\n' +
    "</｜DSML｜invoke>\n</｜DSML｜function_calls>";
  assert.deepEqual(findToolCallsInText(text, NAMES), [
    { name: "grep", arguments: '{"pattern":"a \\"b\\"","limit":5}' },
  ]);
});

Deno.test("recovery accepts bare JSON only when it is the whole visible reply", () => {
  const whole = '```json\n{"name":"read_file","arguments":{"path":"a.ts"}}\n```';
  assert.deepEqual(findToolCallsInText(whole, NAMES, { allowBareJson: true }), [
    { name: "read_file", arguments: '{"path":"a.ts"}' },
  ]);
  const prose = 'You could call {"name":"read_file","arguments":{"path":"a.ts"}} next.';
  assert.deepEqual(findToolCallsInText(prose, NAMES, { allowBareJson: true }), []);
  assert.deepEqual(findToolCallsInText(whole, NAMES), [], "not in reasoning");
  const data = '[{"name":"read_file","arguments":{}},{"name":"x","value":1}]';
  assert.deepEqual(findToolCallsInText(data, NAMES, { allowBareJson: true }), []);
});

Deno.test("recovery ignores unknown tool names and malformed arguments", () => {
  const text = '<tool_call>{"name":"delete_all","arguments":{}}</tool_call>' +
    '<tool_call>{"name":"grep","arguments":"not json"}</tool_call>' +
    '<tool_call>{"name":"grep","arguments":"{\\"pattern\\":\\"y\\"}"}</tool_call>';
  assert.deepEqual(findToolCallsInText(text, NAMES), [
    { name: "grep", arguments: '{"pattern":"y"}' },
  ]);
});

Deno.test("recovered calls get stable ids and prefer visible text over reasoning", () => {
  const reply = {
    text: '<tool_call>{"name":"grep","arguments":{"pattern":"a"}}</tool_call>',
    reasoning: '<tool_call>{"name":"read_file","arguments":{"path":"r"}}</tool_call>',
  };
  const first = recoverToolCalls(reply, NAMES);
  assert.deepEqual(first.map((c) => c.name), ["grep"]);
  assert.deepEqual(recoverToolCalls(reply, NAMES), first);
  assert.deepEqual(
    recoverToolCalls({ text: "", reasoning: reply.reasoning }, NAMES)
      .map((c) => c.name),
    ["read_file"],
  );
  assert.deepEqual(recoverToolCalls(reply, []), []);
});
