import assert from "node:assert/strict";
import type { Message, ProviderRequest } from "../types.ts";
import {
  buildMessagesBody,
  buildMessagesHeaders,
  messageBlocks,
  resolveMessagesUrl,
  wireMessages,
} from "./request.ts";

function req(messages: Message[], extra: Partial<ProviderRequest> = {}): ProviderRequest {
  return { model: "m", system: "sys", messages, tools: [], ...extra };
}

const count = (text: string, part: string): number => text.split(part).length - 1;

Deno.test("anthropic body puts max_tokens and thinking after messages", () => {
  const body = buildMessagesBody(req([{ role: "user", content: "hi" }], { temperature: 0 }), {
    maxTokens: 100,
    thinking: "disabled",
  });
  assert.equal(
    body,
    '{"model":"m","stream":true,"temperature":0,' +
      '"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],' +
      '"messages":[{"role":"user","content":[{"type":"text","text":"hi",' +
      '"cache_control":{"type":"ephemeral"}}]}],"thinking":{"type":"disabled"},"max_tokens":100}',
  );
  assert.throws(() => buildMessagesBody(req([]), { maxTokens: 0 }), RangeError);
});

Deno.test("anthropic wire turns alternate: tool results and user text share a user turn", () => {
  const wire = wireMessages([
    { role: "user", content: "go" },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "t1", name: "a", arguments: "{}" }, {
        id: "t2",
        name: "b",
        arguments: "{}",
      }],
    },
    { role: "tool", toolCallId: "t1", content: "r1" },
    { role: "tool", toolCallId: "t2", content: "" },
    { role: "user", content: "and then?" },
  ]);
  assert.deepEqual(wire.map((m) => [m.role, m.blocks.length]), [
    ["user", 1],
    ["assistant", 2],
    ["user", 3],
  ]);
  assert.match(wire[2].blocks[1], /"content":"\(empty\)"/);
});

Deno.test("anthropic assistant blocks: thinking only on tool turns, never empty", () => {
  assert.deepEqual(messageBlocks({ role: "assistant", content: "A.", reasoning: "r" }), [
    '{"type":"text","text":"A."}',
  ]);
  assert.deepEqual(messageBlocks({ role: "assistant", content: "" }), [
    '{"type":"text","text":"(empty)"}',
  ]);
  const blocks = messageBlocks({
    role: "assistant",
    content: "",
    reasoning: "think",
    toolCalls: [
      { id: "t", name: "w", arguments: '{"path":"a', argumentsError: "cut off" },
      { id: "u", name: "w", arguments: ' {"path":"b"} ' },
    ],
  });
  assert.deepEqual(blocks, [
    '{"type":"thinking","thinking":"think"}',
    '{"type":"tool_use","id":"t","name":"w","input":{}}',
    '{"type":"tool_use","id":"u","name":"w","input":{"path":"b"}}',
  ]);
  assert.ok(!blocks.join("").includes("argumentsError"));
  assert.throws(() => messageBlocks({ role: "tool", content: "orphan" }), TypeError);
});

Deno.test("anthropic blocks are memoized per message", () => {
  const message: Message = { role: "user", content: "once" };
  assert.equal(messageBlocks(message), messageBlocks(message));
});

Deno.test("anthropic keeps at most four breakpoints and re-marks the previous tail after a long step", () => {
  const calls = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, name: "r", arguments: "{}" }));
  const history: Message[] = [
    { role: "user", content: "q" },
    { role: "assistant", content: "", toolCalls: calls },
    ...calls.map((c): Message => ({ role: "tool", toolCallId: c.id, content: "ok" })),
  ];
  const tools = [{ name: "r", description: "d", parameters: { type: "object" } }];
  const body = buildMessagesBody(req(history, { tools }), { maxTokens: 10 });
  assert.equal(count(body, '"cache_control"'), 4);
  const first = buildMessagesBody(req(history.slice(0, 1), { tools }), { maxTokens: 10 });
  // The previous request's marker stays where it was, so its whole body up to the closing
  // brackets is a prefix of this one.
  assert.ok(body.startsWith(first.slice(0, first.indexOf(']}],"max_tokens"'))));
  const short = buildMessagesBody(req(history.slice(0, 1)), { maxTokens: 10 });
  assert.equal(count(short, '"cache_control"'), 2);
});

Deno.test("anthropic URL and headers", () => {
  const s = { name: "p", model: "m", baseUrl: "https://api.deepseek.com/anthropic" };
  assert.equal(resolveMessagesUrl(s), "https://api.deepseek.com/anthropic/v1/messages");
  assert.equal(
    resolveMessagesUrl({ ...s, requestUrl: "https://proxy.example/anthropic/v1/messages" }),
    "https://proxy.example/anthropic/v1/messages",
  );
  assert.deepEqual(buildMessagesHeaders({ ...s, apiKey: "k" }), {
    accept: "text/event-stream",
    "anthropic-version": "2023-06-01",
    "content-type": "application/json",
    "x-api-key": "k",
  });
  const gateway = buildMessagesHeaders({ ...s, headers: { Authorization: "Bearer g" } });
  assert.equal(gateway.authorization, "Bearer g");
  assert.equal(gateway["x-api-key"], undefined);
});
