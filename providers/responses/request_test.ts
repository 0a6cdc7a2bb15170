import assert from "node:assert/strict";
import type { Message } from "../types.ts";
import { buildResponsesBody, inputItems, joinReasoningSignatures } from "./request.ts";

Deno.test("responses body keys come in a fixed order with the cap last", () => {
  const body = buildResponsesBody({
    model: "m",
    system: "sys",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    maxOutputTokens: 5,
  }, { includeEncryptedReasoning: false, reasoningSummary: "auto" });
  assert.equal(
    body,
    '{"model":"m","stream":true,"store":false,"reasoning":{"summary":"auto"},' +
      '"instructions":"sys","input":[{"role":"user","content":"hi"}],"max_output_tokens":5}',
  );
});

Deno.test("responses replays every encrypted reasoning item of a reply", () => {
  const message: Message = {
    role: "assistant",
    content: "Answer.",
    reasoning: "why",
    reasoningSignature: joinReasoningSignatures(["enc1", "enc2"]),
  };
  assert.deepEqual(inputItems(message).map((item) => JSON.parse(item)), [
    {
      type: "reasoning",
      summary: [{ type: "summary_text", text: "why" }],
      encrypted_content: "enc1",
    },
    { type: "reasoning", summary: [], encrypted_content: "enc2" },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Answer." }] },
  ]);
});

Deno.test("responses replays plain reasoning only on tool-call turns", () => {
  assert.deepEqual(inputItems({ role: "assistant", content: "A", reasoning: "r" }).length, 1);
  const items = inputItems({
    role: "assistant",
    content: "",
    reasoning: "r",
    toolCalls: [{ id: "c", name: "n", arguments: "{}" }],
  }).map((item) => JSON.parse(item));
  assert.deepEqual(items, [
    { type: "reasoning", summary: [{ type: "summary_text", text: "r" }] },
    { type: "function_call", call_id: "c", name: "n", arguments: "{}" },
  ]);
  assert.throws(() => inputItems({ role: "tool", content: "x" }), TypeError);
});
