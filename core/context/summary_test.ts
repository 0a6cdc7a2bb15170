import assert from "node:assert/strict";
import { statedLimit, statedTokens } from "./summary.ts";

Deno.test("the window an overflow error states is read from each vendor's wording", () => {
  const cases: [string, number | undefined][] = [
    [
      "This model's maximum context length is 16000 tokens. However, your messages resulted in 20512 tokens.",
      16_000,
    ],
    [
      "This model's maximum context length is 65,536 tokens. However, you requested 70000 tokens (62000 in the messages, 8000 in the completion).",
      65_536,
    ],
    ["prompt is too long: 210000 tokens > 200000 maximum", 200_000],
    ["input length 40000 exceeds the context window of 32768 tokens", 32_768],
    ["the request exceeds the context length limit of 8192 tokens", 8192],
    ["Invalid request: maximum input length is 128000 tokens", 128_000],
    ["context_length_exceeded", undefined],
    ["prompt is too long", undefined],
  ];
  for (const [message, limit] of cases) assert.equal(statedLimit(message), limit, message);
});

Deno.test("the prompt size an overflow error states prefers the messages' share", () => {
  assert.equal(
    statedTokens(
      "maximum context length is 65536 tokens. However, you requested 70000 tokens (62000 in the messages, 8000 in the completion).",
    ),
    62_000,
  );
  assert.equal(statedTokens("prompt is too long: 210,000 tokens > 200000 maximum"), 210_000);
  assert.equal(statedTokens("too long"), undefined);
});
