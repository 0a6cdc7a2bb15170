import assert from "node:assert/strict";
import { ProviderError } from "../errors.ts";
import type { SseEvent } from "../sse.ts";
import type { Chunk } from "../types.ts";
import { decodeChatStream, mapFinishReason, normalizeUsage } from "./stream.ts";

async function* events(...payloads: unknown[]): AsyncGenerator<SseEvent> {
  for (const payload of payloads) {
    yield { data: typeof payload === "string" ? payload : JSON.stringify(payload) };
  }
}

function delta(d: unknown, finish: string | null = null): unknown {
  return { choices: [{ index: 0, delta: d, finish_reason: finish }] };
}

async function decode(source: AsyncIterable<SseEvent>): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for await (const chunk of decodeChatStream(source, { provider: "t" })) out.push(chunk);
  return out;
}

Deno.test("usage normalization reads DeepSeek hit and miss fields", () => {
  assert.deepEqual(
    normalizeUsage({
      prompt_tokens: 100,
      completion_tokens: 20,
      prompt_cache_hit_tokens: 64,
      prompt_cache_miss_tokens: 36,
      prompt_tokens_details: { cached_tokens: 64 },
    }),
    { promptTokens: 100, completionTokens: 20, cacheHitTokens: 64, cacheMissTokens: 36 },
  );
});

Deno.test("usage normalization derives the miss from OpenAI cached_tokens", () => {
  assert.deepEqual(
    normalizeUsage({
      prompt_tokens: 100,
      completion_tokens: 20,
      prompt_tokens_details: { cached_tokens: 40 },
      completion_tokens_details: { reasoning_tokens: 12 },
    }),
    {
      promptTokens: 100,
      completionTokens: 20,
      cacheHitTokens: 40,
      cacheMissTokens: 60,
      reasoningTokens: 12,
    },
  );
});

Deno.test("usage normalization treats missing cache data as all misses", () => {
  assert.deepEqual(
    normalizeUsage({ prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: null }),
    { promptTokens: 10, completionTokens: 2, cacheHitTokens: 0, cacheMissTokens: 10 },
  );
});

Deno.test("finish reasons map to the neutral set", () => {
  assert.equal(mapFinishReason("stop"), "stop");
  assert.equal(mapFinishReason("length"), "length");
  assert.equal(mapFinishReason("tool_calls"), "tool_calls");
  assert.equal(mapFinishReason("function_call"), "tool_calls");
  assert.equal(mapFinishReason("content_filter"), "content_filter");
  assert.equal(mapFinishReason("insufficient_system_resource"), "other");
});

Deno.test("decoder holds tool calls until finish and orders them by index", async () => {
  const chunks = await decode(events(
    delta({
      tool_calls: [{
        index: 1,
        id: "b",
        type: "function",
        function: { name: "two", arguments: "" },
      }],
    }),
    delta({
      tool_calls: [{
        index: 0,
        id: "a",
        type: "function",
        function: { name: "one", arguments: "{" },
      }],
    }),
    delta({ tool_calls: [{ index: 1, function: { arguments: "{}" } }] }),
    delta({ tool_calls: [{ index: 0, function: { arguments: "}" } }] }),
    delta({}, "tool_calls"),
    "[DONE]",
  ));
  assert.deepEqual(chunks, [
    { type: "tool_call", call: { id: "a", name: "one", arguments: "{}" } },
    { type: "tool_call", call: { id: "b", name: "two", arguments: "{}" } },
    { type: "done", finishReason: "tool_calls" },
  ]);
});

Deno.test("decoder splits calls that reuse one index with a new id", async () => {
  const chunks = await decode(events(
    delta({ tool_calls: [{ index: 0, id: "a", function: { name: "one", arguments: "{}" } }] }),
    delta({ tool_calls: [{ index: 0, id: "b", function: { name: "two", arguments: "{}" } }] }),
    delta({}, "stop"),
    "[DONE]",
  ));
  assert.deepEqual(chunks.map((c) => c.type === "tool_call" ? c.call.id : c.type), [
    "a",
    "b",
    "done",
  ]);
  // `stop` after tool calls still means the caller must run them.
  assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "tool_calls" });
});

Deno.test("decoder continues an index-less delta on the previous call", async () => {
  const chunks = await decode(events(
    delta({ tool_calls: [{ id: "a", function: { name: "one", arguments: '{"x"' } }] }),
    delta({ tool_calls: [{ function: { arguments: ":1}" } }] }),
    "[DONE]",
  ));
  assert.deepEqual(chunks, [
    { type: "tool_call", call: { id: "a", name: "one", arguments: '{"x":1}' } },
    { type: "done", finishReason: "tool_calls" },
  ]);
});

Deno.test("decoder rejects a tool call that never got a name", async () => {
  await assert.rejects(
    decode(
      events(delta({ tool_calls: [{ index: 0, function: { arguments: "{}" } }] }, "tool_calls")),
    ),
    (error: unknown) => error instanceof ProviderError && error.code === "provider_stream",
  );
});

Deno.test("decoder rejects malformed event data", async () => {
  await assert.rejects(
    decode(events('{"choices":[{"delta":')),
    (error: unknown) =>
      error instanceof ProviderError && error.code === "provider_stream" &&
      /malformed stream event/.test(error.message),
  );
});

Deno.test("decoder emits usage before done even when usage arrives first", async () => {
  const chunks = await decode(events(
    delta({ content: "hi" }),
    {
      choices: [{ index: 0, delta: {}, finish_reason: "length" }],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    },
    "[DONE]",
  ));
  assert.deepEqual(chunks.map((c) => c.type), ["text", "usage", "done"]);
  assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "length" });
});
