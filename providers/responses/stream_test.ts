import assert from "node:assert/strict";
import type { SseEvent } from "../sse.ts";
import type { Chunk } from "../types.ts";
import { decodeResponsesStream } from "./stream.ts";

async function* events(...payloads: Record<string, unknown>[]): AsyncGenerator<SseEvent> {
  for (const payload of payloads) yield { data: JSON.stringify(payload) };
}

async function decode(source: AsyncIterable<SseEvent>): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for await (const chunk of decodeResponsesStream(source, { provider: "t" })) out.push(chunk);
  return out;
}

const completed = { type: "response.completed", response: { status: "completed" } };

Deno.test("responses decoder orders calls by output index and trusts the done arguments", async () => {
  const chunks = await decode(events(
    {
      type: "response.output_item.added",
      output_index: 2,
      item: { type: "function_call", id: "fc_b", call_id: "call_b", name: "two" },
    },
    {
      type: "response.output_item.added",
      output_index: 1,
      item: { type: "function_call", id: "fc_a", call_id: "call_a", name: "one" },
    },
    {
      type: "response.function_call_arguments.delta",
      item_id: "fc_a",
      output_index: 1,
      delta: '{"x"',
    },
    {
      type: "response.function_call_arguments.delta",
      item_id: "fc_b",
      output_index: 2,
      delta: "{}",
    },
    {
      type: "response.function_call_arguments.done",
      item_id: "fc_a",
      output_index: 1,
      arguments: '{"x":1}',
    },
    completed,
  ));
  assert.deepEqual(chunks, [
    { type: "tool_call", call: { id: "call_a", name: "one", arguments: '{"x":1}' } },
    { type: "tool_call", call: { id: "call_b", name: "two", arguments: "{}" } },
    { type: "done", finishReason: "tool_calls" },
  ]);
});

Deno.test("responses decoder separates reasoning summary parts", async () => {
  const chunks = await decode(events(
    { type: "response.reasoning_summary_text.delta", item_id: "rs", summary_index: 0, delta: "a" },
    { type: "response.reasoning_summary_text.delta", item_id: "rs", summary_index: 1, delta: "b" },
    completed,
  ));
  assert.equal(chunks.map((c) => c.type === "reasoning" ? c.text : "").join(""), "a\n\nb");
});

Deno.test("responses decoder maps incomplete reasons", async () => {
  const incomplete = (reason: string) => ({
    type: "response.incomplete",
    response: { status: "incomplete", incomplete_details: { reason } },
  });
  assert.deepEqual((await decode(events(incomplete("max_output_tokens")))).at(-1), {
    type: "done",
    finishReason: "length",
  });
  assert.deepEqual((await decode(events(incomplete("content_filter")))).at(-1), {
    type: "done",
    finishReason: "content_filter",
  });
  await assert.rejects(decode(events({ type: "response.created" })), /truncated/);
});
