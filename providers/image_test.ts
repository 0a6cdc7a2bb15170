/**
 * Image parts on user messages, per wire format: each kind's documented shape when images are
 * present, and byte-identical text-only serialization when they are not.
 */
import assert from "node:assert/strict";
import { buildMessagesBody, messageBlocks } from "./anthropic/request.ts";
import { buildRequestBody, messageFragment } from "./openai/request.ts";
import { buildResponsesBody, inputItems } from "./responses/request.ts";
import { imageUrl } from "./image.ts";
import type { ImagePart, Message } from "./types.ts";

const PNG: ImagePart = { mediaType: "image/png", data: "iVBORw0KGgo=" };
const URL_IMAGE: ImagePart = { url: "https://example.com/shot.jpg" };

function user(content: string, images?: ImagePart[]): Message {
  return images === undefined ? { role: "user", content } : { role: "user", content, images };
}

Deno.test("imageUrl makes a data URL of inline bytes and keeps a URL as is", () => {
  assert.equal(imageUrl(PNG), "data:image/png;base64,iVBORw0KGgo=");
  assert.equal(imageUrl(URL_IMAGE), "https://example.com/shot.jpg");
});

Deno.test("openai sends a user message with images as a text part and image_url parts", () => {
  assert.equal(
    messageFragment(user("what is this?", [PNG, URL_IMAGE])),
    '{"role":"user","content":[{"type":"text","text":"what is this?"},' +
      '{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},' +
      '{"type":"image_url","image_url":{"url":"https://example.com/shot.jpg"}}]}',
  );
  assert.equal(
    messageFragment(user("", [URL_IMAGE])),
    '{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/shot.jpg"}}]}',
  );
});

Deno.test("anthropic sends base64 and url image blocks before the text", () => {
  assert.deepEqual(messageBlocks(user("what is this?", [PNG, URL_IMAGE])), [
    '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}',
    '{"type":"image","source":{"type":"url","url":"https://example.com/shot.jpg"}}',
    '{"type":"text","text":"what is this?"}',
  ]);
  // The rolling cache marker lands on the turn's last block as usual.
  const body = buildMessagesBody({
    model: "m",
    system: "s",
    messages: [user("see", [PNG])],
    tools: [],
  }, { maxTokens: 100 });
  const turn = JSON.parse(body).messages[0];
  assert.equal(turn.content.length, 2);
  assert.deepEqual(turn.content[0].source, {
    type: "base64",
    media_type: "image/png",
    data: "iVBORw0KGgo=",
  });
  assert.deepEqual(turn.content[1].cache_control, { type: "ephemeral" });
});

Deno.test("responses sends input_text and input_image parts", () => {
  assert.deepEqual(inputItems(user("what is this?", [PNG, URL_IMAGE])), [
    '{"role":"user","content":[{"type":"input_text","text":"what is this?"},' +
    '{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo=","detail":"auto"},' +
    '{"type":"input_image","image_url":"https://example.com/shot.jpg","detail":"auto"}]}',
  ]);
});

Deno.test("a message without images serializes byte-identically in every kind", () => {
  const plain = user("hello");
  const empty = user("hello", []);
  assert.equal(messageFragment(empty), messageFragment(plain));
  assert.equal(messageFragment(plain), '{"role":"user","content":"hello"}');
  assert.deepEqual(messageBlocks(empty), messageBlocks(plain));
  assert.deepEqual(messageBlocks(plain), ['{"type":"text","text":"hello"}']);
  assert.deepEqual(inputItems(empty), inputItems(plain));
  assert.deepEqual(inputItems(plain), ['{"role":"user","content":"hello"}']);
});

Deno.test("images only ever ride user messages", () => {
  const system = { role: "system", content: "rules", images: [PNG] } as Message;
  assert.equal(messageFragment(system), '{"role":"system","content":"rules"}');
  assert.deepEqual(messageBlocks(system), ['{"type":"text","text":"rules"}']);
  assert.deepEqual(inputItems(system), ['{"role":"system","content":"rules"}']);
});

Deno.test("an image turn keeps later requests byte-extensions of earlier ones", () => {
  const history: Message[] = [user("look", [PNG])];
  const first = buildRequestBody({ model: "m", system: "s", messages: history, tools: [] });
  history.push({ role: "assistant", content: "a cat" }, user("thanks"));
  const second = buildRequestBody({ model: "m", system: "s", messages: history, tools: [] });
  assert.ok(second.startsWith(first.slice(0, -2)), "the image turn's bytes did not change");
  const r1 = buildResponsesBody({
    model: "m",
    system: "s",
    messages: history.slice(0, 1),
    tools: [],
  });
  const r2 = buildResponsesBody({ model: "m", system: "s", messages: history, tools: [] });
  assert.ok(r2.startsWith(r1.slice(0, -2)));
});
