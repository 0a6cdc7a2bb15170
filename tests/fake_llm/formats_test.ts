import assert from "node:assert/strict";
import { type FakeLlm, type FakeLlmOptions, startFakeLlm } from "./mod.ts";

// Frames are arbitrary JSON; the assertions below check their shape.
// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

async function withFake(opts: FakeLlmOptions, fn: (fake: FakeLlm) => Promise<void>) {
  const fake = await startFakeLlm(opts);
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

/** Parses `event:` / `data:` SSE blocks. */
function events(text: string): { event?: string; data: Json }[] {
  return text.split("\n\n").filter((b) => b.startsWith("event:") || b.startsWith("data:")).map(
    (block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? "null";
      return { event, data: JSON.parse(data) };
    },
  );
}

Deno.test("fake picks the wire format from the request path", async () => {
  await withFake({ script: [{ text: "a" }, { text: "b" }, { text: "c" }] }, async (fake) => {
    const post = (path: string) =>
      fetch(`${fake.url}${path}`, { method: "POST", body: '{"model":"m"}' }).then((r) => r.text());
    assert.match(await post("/chat/completions"), /chat\.completion\.chunk/);
    assert.match(await post("/messages"), /event: message_start/);
    assert.match(await post("/responses"), /event: response\.created/);
  });
});

Deno.test("fake anthropic sends named events, pings, signatures and cache usage", async () => {
  await withFake({
    format: "anthropic",
    script: [{
      reasoning: "hmm",
      reasoningSignature: "sig==",
      text: "hi",
      toolCalls: [{ id: "toolu_1", name: "r", arguments: '{"a":1}' }],
    }],
  }, async (fake) => {
    const response = await fetch(`${fake.url}/messages`, { method: "POST", body: "{}" });
    assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
    const list = events(await response.text());
    for (const e of list) assert.equal(e.event, e.data.type, "event: names the data type");
    const types = list.map((e) => e.event);
    assert.equal(types[0], "message_start");
    assert.ok(types.includes("ping"));
    assert.deepEqual(types.slice(-2), ["message_delta", "message_stop"]);
    const usage = list[0].data.message.usage;
    for (const key of ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]) {
      assert.equal(typeof usage[key], "number", key);
    }
    const deltas = list.filter((e) => e.event === "content_block_delta").map((e) => e.data.delta);
    assert.deepEqual(deltas.find((d) => d.type === "signature_delta"), {
      type: "signature_delta",
      signature: "sig==",
    });
    const json = deltas.filter((d) => d.type === "input_json_delta").map((d) => d.partial_json);
    assert.equal(json.join(""), '{"a":1}');
    assert.equal(list.at(-2)!.data.delta.stop_reason, "tool_use");
  });
});

Deno.test("fake anthropic errors use Anthropic's error shape", async () => {
  await withFake({ format: "anthropic", script: [{ status: 529 }] }, async (fake) => {
    const response = await fetch(`${fake.url}/messages`, { method: "POST", body: "{}" });
    assert.equal(response.status, 529);
    const body = await response.json();
    assert.deepEqual(body.error, { type: "overloaded_error", message: "Overloaded" });
    assert.equal(body.type, "error");
  });
});

Deno.test("fake responses numbers its events and reports cached tokens", async () => {
  await withFake({
    format: "responses",
    script: [{ reasoning: "why", text: "ok", toolCalls: [{ name: "r", arguments: "{}" }] }],
  }, async (fake) => {
    const response = await fetch(`${fake.url}/responses`, {
      method: "POST",
      body: JSON.stringify({ model: "m", include: ["reasoning.encrypted_content"] }),
    });
    const list = events(await response.text());
    assert.deepEqual(list.map((e) => e.data.sequence_number), list.map((_, i) => i));
    const done = list.filter((e) => e.event === "response.output_item.done").map((e) =>
      e.data.item
    );
    assert.deepEqual(done.map((i) => i.type), ["reasoning", "message", "function_call"]);
    assert.equal(typeof done[0].encrypted_content, "string");
    const completed = list.at(-1)!;
    assert.equal(completed.event, "response.completed");
    assert.equal(typeof completed.data.response.usage.input_tokens_details.cached_tokens, "number");
  });
});
