import assert from "node:assert/strict";
import { ContextOverflowError, ProviderError } from "../errors.ts";
import type { SseEvent } from "../sse.ts";
import type { Chunk } from "../types.ts";
import { decodeMessagesStream, mapStopReason, normalizeAnthropicUsage } from "./stream.ts";

async function* events(...payloads: Record<string, unknown>[]): AsyncGenerator<SseEvent> {
  for (const payload of payloads) {
    yield { event: String(payload.type), data: JSON.stringify(payload) };
  }
}

async function decode(source: AsyncIterable<SseEvent>): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for await (const chunk of decodeMessagesStream(source, { provider: "t" })) out.push(chunk);
  return out;
}

const start = (usage = { input_tokens: 10, output_tokens: 1 }) => ({
  type: "message_start",
  message: { usage },
});
const stop = (reason: string, usage: Record<string, number> = { output_tokens: 5 }) => ({
  type: "message_delta",
  delta: { stop_reason: reason },
  usage,
});

Deno.test("anthropic stop reasons map to the neutral set", () => {
  assert.equal(mapStopReason("end_turn"), "stop");
  assert.equal(mapStopReason("stop_sequence"), "stop");
  assert.equal(mapStopReason("tool_use"), "tool_calls");
  assert.equal(mapStopReason("max_tokens"), "length");
  assert.equal(mapStopReason("model_context_window_exceeded"), "length");
  assert.equal(mapStopReason("refusal"), "content_filter");
  assert.equal(mapStopReason("pause_turn"), "other");
});

Deno.test("anthropic usage adds cache reads and writes to the prompt", () => {
  assert.deepEqual(
    normalizeAnthropicUsage({
      input_tokens: 5,
      cache_read_input_tokens: 90,
      cache_creation_input_tokens: null,
      output_tokens: 7,
    }),
    { promptTokens: 95, completionTokens: 7, cacheHitTokens: 90, cacheMissTokens: 5 },
  );
});

Deno.test("anthropic decoder takes a tool input sent whole in the start event", async () => {
  const chunks = await decode(events(
    start(),
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "toolu_1", name: "r", input: { path: "a" } },
    },
    { type: "content_block_stop", index: 0 },
    {
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "toolu_2", name: "list", input: {} },
    },
    { type: "content_block_stop", index: 1 },
    stop("tool_use"),
    { type: "message_stop" },
  ));
  assert.deepEqual(chunks.filter((c) => c.type === "tool_call"), [
    { type: "tool_call", call: { id: "toolu_1", name: "r", arguments: '{"path":"a"}' } },
    { type: "tool_call", call: { id: "toolu_2", name: "list", arguments: "{}" } },
  ]);
});

Deno.test("anthropic decoder leaves a tool call cut before its input empty", async () => {
  const chunks = await decode(events(
    start(),
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "toolu_1", name: "w", input: {} },
    },
    stop("max_tokens"),
    { type: "message_stop" },
  ));
  assert.deepEqual(chunks.slice(-3).map((c) => c.type), ["tool_call", "usage", "done"]);
  assert.deepEqual(chunks[0], {
    type: "tool_call",
    call: { id: "toolu_1", name: "w", arguments: "" },
  });
  assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "length" });
});

Deno.test("anthropic decoder merges message_delta usage over message_start", async () => {
  const chunks = await decode(events(
    start({ input_tokens: 10, output_tokens: 1 }),
    stop("end_turn", { output_tokens: 33, cache_read_input_tokens: 100 }),
    { type: "message_stop" },
  ));
  assert.deepEqual(chunks, [
    {
      type: "usage",
      usage: { promptTokens: 110, completionTokens: 33, cacheHitTokens: 100, cacheMissTokens: 10 },
    },
    { type: "done", finishReason: "stop" },
  ]);
});

Deno.test("anthropic decoder: error events become typed errors", async () => {
  await assert.rejects(
    decode(events(start(), {
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 1 > 0" },
    })),
    ContextOverflowError,
  );
  await assert.rejects(
    decode(
      events(start(), {
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" },
      }),
    ),
    (e: unknown) => e instanceof ProviderError && e.retryable && e.code === "provider_stream",
  );
});

Deno.test("anthropic decoder accepts a finished message without message_stop", async () => {
  const chunks = await decode(events(start(), stop("end_turn")));
  assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "stop" });
  await assert.rejects(
    decode(events(start(), {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "hi" },
    })),
    /truncated/,
  );
});
