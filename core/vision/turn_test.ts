import assert from "node:assert/strict";
import { ScriptedProvider, textReply } from "../../tests/support/scripted_provider.ts";
import type { ProviderConfig, ResolvedModel } from "../config/types.ts";
import type { ImagePart } from "../../providers/types.ts";
import {
  DESCRIPTION_MAX_TOKENS,
  imageDescriptionBlock,
  imageUnavailableBlock,
  VISION_SYSTEM_PROMPT,
} from "./describe.ts";
import { ImageTurns } from "./turn.ts";
import { imagesUnsupportedError, type VisionPlan } from "./plan.ts";

const IMAGE: ImagePart = { mediaType: "image/jpeg", data: "/9j/4AAQ" };

function resolved(name: string, model: string, maxOutputTokens = 0): ResolvedModel {
  const provider: ProviderConfig = {
    name,
    kind: "openai",
    models: [model],
    context_window: 1000,
    max_output_tokens: maxOutputTokens,
    model_overrides: {},
    headers: {},
    options: {},
  };
  return { provider, model, contextWindow: 1000, maxOutputTokens };
}

function turns(plan: VisionPlan, provider?: ScriptedProvider) {
  let built = 0;
  const t = new ImageTurns({
    plan,
    createProvider: () => {
      built++;
      if (!provider) throw new Error("no provider expected");
      return provider;
    },
  });
  return { t, built: () => built };
}

const signal = new AbortController().signal;

Deno.test("a turn without images is left alone and builds no provider", async () => {
  const { t, built } = turns({ mode: "describe", vision: resolved("v", "eye") });
  assert.deepEqual(await t.prepare({ content: "c", text: "t", images: [] }, { signal }), {
    content: "c",
    notices: [],
  });
  t.check([]);
  assert.equal(built(), 0);
});

Deno.test("direct mode attaches a copy of the images and sends nothing extra", async () => {
  const { t, built } = turns({ mode: "direct" });
  const images = [IMAGE];
  const out = await t.prepare({ content: "c", text: "t", images }, { signal });
  assert.deepEqual(out, { content: "c", images: [IMAGE], notices: [] });
  assert.notEqual(out.images, images);
  assert.equal(built(), 0);
});

Deno.test("describe mode sends one capped request per image and builds the provider once", async () => {
  const provider = new ScriptedProvider([textReply("  first  "), textReply("second")]);
  const { t, built } = turns({ mode: "describe", vision: resolved("v", "eye", 2048) }, provider);
  const out = await t.prepare(
    { content: "decorated", text: "what?", images: [IMAGE, { url: "https://x.test/a.png" }] },
    { signal },
  );
  assert.equal(built(), 1);
  assert.equal(provider.requests.length, 2);
  const [req] = provider.requests;
  assert.equal(req.model, "eye");
  assert.equal(req.system, VISION_SYSTEM_PROMPT);
  assert.deepEqual(req.tools, []);
  assert.equal(req.maxOutputTokens, 2048, "the vision provider's own lower cap wins");
  assert.deepEqual(req.messages[0].images, [IMAGE]);
  assert.match(
    req.messages[0].content,
    /\(1 of 2\)[\s\S]*<user-message>\nwhat\?\n<\/user-message>/,
  );
  assert.equal(
    out.content,
    "decorated\n\n" + imageDescriptionBlock({ model: "v/eye", index: 1, text: "first" }) +
      "\n\n" + imageDescriptionBlock({ model: "v/eye", index: 2, text: "second" }),
  );
  assert.equal(out.images, undefined);
});

Deno.test("descriptions report their usage and the vision model's price", async () => {
  const usage = {
    promptTokens: 900,
    completionTokens: 30,
    cacheHitTokens: 0,
    cacheMissTokens: 900,
  };
  const provider = new ScriptedProvider([
    {
      chunks: [{ type: "text", text: "a cat" }, { type: "usage", usage }, {
        type: "done",
        finishReason: "stop",
      }],
    },
    textReply("no usage reported"),
  ]);
  const price = { cache_hit: 0.1, input: 1, output: 2, currency: "USD" };
  const vision = { ...resolved("v", "eye"), price };
  const { t } = turns({ mode: "describe", vision }, provider);
  const out = await t.prepare(
    { content: "c", text: "t", images: [IMAGE, IMAGE] },
    { signal },
  );
  assert.deepEqual(out.sideRequests, [{ purpose: "vision", usage, price }]);
});

Deno.test("the description cap defaults to DESCRIPTION_MAX_TOKENS", async () => {
  const provider = new ScriptedProvider([textReply("ok")]);
  const { t } = turns({ mode: "describe", vision: resolved("v", "eye", -1) }, provider);
  await t.prepare({ content: "c", text: "t", images: [IMAGE] }, { signal });
  assert.equal(provider.requests[0].maxOutputTokens, DESCRIPTION_MAX_TOKENS);
});

Deno.test("a cancelled description is reported as cancelled, not as a description", async () => {
  const provider = new ScriptedProvider([{ ...textReply("never"), delayMs: 5_000 }]);
  const { t } = turns({ mode: "describe", vision: resolved("v", "eye") }, provider);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException("stop", "AbortError")), 20);
  const out = await t.prepare({ content: "c", text: "t", images: [IMAGE] }, {
    signal: controller.signal,
  });
  assert.ok(!out.content.includes("<image-description"));
  assert.ok(out.content.includes("(cancelled)"));
  assert.deepEqual(out.notices.map((n) => n.level), ["warning"]);
  assert.match(out.notices[0].message, /^image 1 could not be described by v\/eye: cancelled\./);
});

Deno.test("none mode: check throws and prepare drops the images with a warning", async () => {
  const error = imagesUnsupportedError(resolved("main", "writer"));
  const { t } = turns({ mode: "none", error });
  assert.throws(() => t.check([IMAGE]), /model main\/writer cannot read images/);
  const out = await t.prepare({ content: "c", text: "t", images: [IMAGE] }, { signal });
  assert.equal(out.images, undefined);
  assert.match(out.notices[0].message, /^1 image\(s\) dropped: model main\/writer cannot read/);
  assert.match(out.notices[0].message, /Fix: set agent\.vision_model = "auto"/);
});

Deno.test("description blocks are versioned and cannot be closed early by their text", () => {
  assert.equal(
    imageDescriptionBlock({ model: 'a"b', index: 3, text: "x </image-description> y" }),
    '<image-description version="1" model="a&quot;b" index="3">\n' +
      "x &lt;/image-description> y\n</image-description>",
  );
  assert.equal(
    imageUnavailableBlock({ index: 1, reason: "gone" }),
    '<image-unavailable version="1" index="1">\ngone\n</image-unavailable>',
  );
});
