import assert from "node:assert/strict";
import { finishToolCalls } from "./tool_call_finish.ts";
import type { Chunk, FinishReason } from "./types.ts";

async function run(chunks: Chunk[], toolNames = ["read_file"]): Promise<Chunk[]> {
  async function* source(): AsyncGenerator<Chunk> {
    yield* chunks;
  }
  const out: Chunk[] = [];
  for await (const chunk of finishToolCalls(source(), { toolNames })) out.push(chunk);
  return out;
}

const usage: Chunk = {
  type: "usage",
  usage: { promptTokens: 1, completionTokens: 1, cacheHitTokens: 0, cacheMissTokens: 1 },
};
const done = (finishReason: FinishReason): Chunk => ({ type: "done", finishReason });

Deno.test("finish holds calls and usage until done, in that order", async () => {
  const call = { id: "a", name: "read_file", arguments: "{}" };
  const out = await run([
    usage,
    { type: "tool_call", call },
    { type: "text", text: "x" },
    done("tool_calls"),
  ]);
  assert.deepEqual(out.map((c) => c.type), ["text", "tool_call", "usage", "done"]);
});

Deno.test("finish marks only the last call at a length stop, and an empty one too", async () => {
  const out = await run([
    { type: "tool_call", call: { id: "a", name: "read_file", arguments: '{"path":' } },
    { type: "tool_call", call: { id: "b", name: "read_file", arguments: "" } },
    done("length"),
  ]);
  const calls = out.flatMap((c) => c.type === "tool_call" ? [c.call] : []);
  assert.equal(calls[0].argumentsError, undefined, "earlier calls were complete on the wire");
  assert.match(calls[1].argumentsError ?? "", /before any arguments were written/);
  assert.equal(calls[1].arguments, "");
});

Deno.test("finish does not recover calls from a reply cut at the limit", async () => {
  const text = '<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>';
  assert.deepEqual((await run([{ type: "text", text }, done("length")])).at(-1), done("length"));
  assert.deepEqual((await run([{ type: "text", text }, done("stop")])).at(-1), done("tool_calls"));
});
