import assert from "node:assert/strict";
import { capabilitiesFor, DEEPSEEK_AUTOMATIC_OUTPUT_TOKENS } from "./capabilities.ts";
import "./builtin_kinds.ts";

Deno.test("capabilities combine the kind's needs with known endpoint facts", () => {
  const anthropic = capabilitiesFor({
    kind: "anthropic",
    baseUrl: "https://api.deepseek.com/anthropic",
    model: "deepseek-v4-flash",
  });
  assert.deepEqual(anthropic, {
    requiresMaxTokens: true,
    defaultMaxTokens: 32768,
    automaticOutputTokens: DEEPSEEK_AUTOMATIC_OUTPUT_TOKENS,
    ignoresThinkingBudget: true,
    images: false,
  });
  const openai = capabilitiesFor({
    kind: "openai",
    baseUrl: "https://api.deepseek.com",
    model: "deepseek-v4-flash-vision-exp",
  });
  assert.deepEqual(openai, {
    requiresMaxTokens: false,
    automaticOutputTokens: 393216,
    ignoresThinkingBudget: false,
    images: true,
  });
});

Deno.test("capabilities assume nothing about unknown endpoints", () => {
  assert.deepEqual(
    capabilitiesFor({ kind: "openai", baseUrl: "https://gw.example/v1", model: "m" }),
    { requiresMaxTokens: false, ignoresThinkingBudget: false, images: false },
  );
  assert.equal(
    capabilitiesFor({
      kind: "openai",
      baseUrl: "https://gw.example/v1",
      requestUrl: "https://api.deepseek.com/chat/completions",
      model: "m",
    }).automaticOutputTokens,
    393216,
    "request_url is where requests go",
  );
});

Deno.test("config options declare capabilities for gateways", () => {
  const caps = capabilitiesFor({
    kind: "openai",
    baseUrl: "https://gw.example/v1",
    model: "vl",
    options: {
      automatic_output_tokens: 65536,
      vision_models: ["vl"],
      ignores_thinking_budget: true,
    },
  });
  assert.equal(caps.automaticOutputTokens, 65536);
  assert.equal(caps.images, true);
  assert.equal(caps.ignoresThinkingBudget, true);
  assert.equal(
    capabilitiesFor({
      kind: "openai",
      baseUrl: "https://api.deepseek.com",
      model: "deepseek-v4-flash-vision-exp",
      options: { images: false },
    }).images,
    false,
  );
});
