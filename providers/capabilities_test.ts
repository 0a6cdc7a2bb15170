import assert from "node:assert/strict";
import {
  capabilitiesFor,
  DEEPSEEK_AUTOMATIC_OUTPUT_TOKENS,
  imagePlaceholder,
  requestForCapabilities,
} from "./capabilities.ts";
import type { Message, ProviderRequest } from "./types.ts";
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

Deno.test("a text-only endpoint gets fixed placeholder text for every stored image", () => {
  const png = { mediaType: "image/png", data: "iVBORw0KGgo=" };
  const plain: Message = { role: "user", content: "hi" };
  const shot: Message = { role: "user", content: "look", images: [png, png] };
  const bare: Message = { role: "user", content: "", images: [png] };
  const req: ProviderRequest = {
    model: "m",
    system: "s",
    messages: [plain, shot, bare],
    tools: [],
  };
  assert.equal(requestForCapabilities(req, { images: true }), req, "untouched when accepted");
  const noImages = { ...req, messages: [plain] };
  assert.equal(requestForCapabilities(noImages, { images: false }), noImages, "nothing to strip");
  const a = requestForCapabilities(req, { images: false });
  const b = requestForCapabilities({ ...req }, { images: false });
  assert.deepEqual(a.messages.map((m) => m.images), [undefined, undefined, undefined]);
  assert.ok(a.messages.every((m) => !("images" in m)));
  assert.equal(a.messages[0], plain);
  assert.equal(a.messages[1].content, `look\n\n${imagePlaceholder(1)}\n\n${imagePlaceholder(2)}`);
  assert.equal(a.messages[2].content, imagePlaceholder(1));
  // The same stand-in object every request, so serializer caches and bytes hold.
  assert.equal(b.messages[1], a.messages[1]);
  assert.equal(
    imagePlaceholder(3),
    '<image-unavailable version="1" index="3">\nAn image was attached here. The current model ' +
      "does not accept images, so it was not sent; ask the user to describe it if it matters." +
      "\n</image-unavailable>",
  );
});
