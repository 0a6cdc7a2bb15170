import assert from "node:assert/strict";
import type { ProviderSettings } from "../registry.ts";
import type { Message, ProviderRequest } from "../types.ts";
import { buildHeaders, buildRequestBody, messageFragment, resolveRequestUrl } from "./request.ts";

const tools = [
  {
    name: "grep",
    description: "Search files.",
    parameters: { type: "object", properties: { pattern: { type: "string" } } },
  },
  { name: "read_file", description: "Read a file.", parameters: { type: "object" } },
];

function base(messages: Message[], extra: Partial<ProviderRequest> = {}): ProviderRequest {
  return { model: "deepseek-chat", system: "sys", messages, tools: [], ...extra };
}

Deno.test("request body keys come in the fixed cache-friendly order", () => {
  const body = buildRequestBody(base([{ role: "user", content: "hi" }], {
    tools,
    temperature: 0.2,
    reasoningEffort: "high",
    maxOutputTokens: 4096,
  }));
  assert.equal(
    body,
    '{"model":"deepseek-chat","stream":true,"stream_options":{"include_usage":true},' +
      '"temperature":0.2,"reasoning_effort":"high",' +
      '"tools":[{"type":"function","function":{"name":"grep","description":"Search files.",' +
      '"parameters":{"type":"object","properties":{"pattern":{"type":"string"}}}}},' +
      '{"type":"function","function":{"name":"read_file","description":"Read a file.",' +
      '"parameters":{"type":"object"}}}],' +
      '"messages":[{"role":"system","content":"sys"},{"role":"user","content":"hi"}],' +
      '"max_tokens":4096}',
  );
  assert.deepEqual(Object.keys(JSON.parse(body)), [
    "model",
    "stream",
    "stream_options",
    "temperature",
    "reasoning_effort",
    "tools",
    "messages",
    "max_tokens",
  ]);
});

Deno.test("request body omits unset optional fields and empty tools", () => {
  const body = JSON.parse(buildRequestBody(base([{ role: "user", content: "hi" }])));
  assert.deepEqual(Object.keys(body), ["model", "stream", "stream_options", "messages"]);
});

Deno.test("request body can name the token cap max_completion_tokens", () => {
  const body = buildRequestBody(base([], { maxOutputTokens: 100 }), {
    maxTokensField: "max_completion_tokens",
  });
  assert.equal(JSON.parse(body).max_completion_tokens, 100);
  assert.ok(!body.includes('"max_tokens"'));
});

Deno.test("assistant tool-call turns carry null content, reasoning_content and tool_calls", () => {
  const turn: Message = {
    role: "assistant",
    content: "",
    reasoning: "think",
    toolCalls: [{ id: "c1", name: "grep", arguments: '{"pattern":"x"}' }],
  };
  assert.equal(
    messageFragment(turn),
    '{"role":"assistant","content":null,"reasoning_content":"think","tool_calls":[' +
      '{"id":"c1","type":"function","function":{"name":"grep","arguments":"{\\"pattern\\":\\"x\\"}"}}]}',
  );
  const withText: Message = { ...turn, content: "Looking." };
  assert.equal(JSON.parse(messageFragment(withText)).content, "Looking.");
});

Deno.test("reasoning is not replayed on plain assistant turns", () => {
  const plain: Message = { role: "assistant", content: "Answer.", reasoning: "private" };
  assert.equal(messageFragment(plain), '{"role":"assistant","content":"Answer."}');
});

Deno.test("tool results serialize as role tool with tool_call_id", () => {
  const result: Message = {
    role: "tool",
    toolCallId: "c1",
    name: "grep",
    content: "a.ts:1: x",
    isError: false,
  };
  assert.equal(
    messageFragment(result),
    '{"role":"tool","tool_call_id":"c1","content":"a.ts:1: x"}',
  );
  assert.throws(() => messageFragment({ role: "tool", content: "orphan" }), TypeError);
});

Deno.test("message fragments are memoized per message object", () => {
  const message: Message = { role: "user", content: "once" };
  const first = messageFragment(message);
  assert.equal(messageFragment(message), first);
  // Messages are immutable once appended, so a mutation (a caller bug) is not re-serialized.
  (message as { content: string }).content = "changed";
  assert.equal(messageFragment(message), first);
});

Deno.test("each body is a byte-extension of the previous one", () => {
  const history: Message[] = [{ role: "user", content: "q1 ✓" }];
  const first = buildRequestBody(base(history, { tools }));
  history.push({ role: "assistant", content: "a1" }, { role: "user", content: "q2" });
  const second = buildRequestBody(base(history, { tools }));
  assert.ok(second.startsWith(first.slice(0, -2)));
  assert.equal(second.slice(first.length - 2, first.length - 1), ",");
  assert.ok(second.endsWith("]}"));
});

Deno.test("request URL prefers request_url, then chat_url, then base_url", () => {
  const settings: ProviderSettings = {
    name: "p",
    model: "m",
    baseUrl: "https://api.deepseek.com/",
  };
  assert.equal(resolveRequestUrl(settings), "https://api.deepseek.com/chat/completions");
  assert.equal(
    resolveRequestUrl({ ...settings, baseUrl: "https://api.openai.com/v1" }),
    "https://api.openai.com/v1/chat/completions",
  );
  assert.equal(
    resolveRequestUrl({ ...settings, chatUrl: "https://legacy.example/chat" }),
    "https://legacy.example/chat",
  );
  assert.equal(
    resolveRequestUrl({
      ...settings,
      chatUrl: "https://legacy.example/chat",
      requestUrl: "https://proxy.example/v1/chat/completions?x=1",
    }),
    "https://proxy.example/v1/chat/completions?x=1",
  );
  assert.throws(() => resolveRequestUrl({ name: "p", model: "m" }), TypeError);
});

Deno.test("headers carry the bearer key and let configured headers override", () => {
  assert.deepEqual(buildHeaders({ name: "p", model: "m", apiKey: "sk-1" }), {
    accept: "text/event-stream",
    authorization: "Bearer sk-1",
    "content-type": "application/json",
  });
  const custom = buildHeaders({
    name: "p",
    model: "m",
    apiKey: "sk-1",
    headers: { Authorization: "Bearer other", "HTTP-Referer": "https://reasonix.dev" },
  });
  assert.equal(custom.authorization, "Bearer other");
  assert.equal(custom["http-referer"], "https://reasonix.dev");
  assert.equal(buildHeaders({ name: "p", model: "m" }).authorization, undefined);
});
