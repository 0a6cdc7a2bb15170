import assert from "node:assert/strict";
import { anthropicErrorBody } from "../../tests/fake_llm/mod.ts";
import { collect, request, TEST_KEY, withFake } from "../../tests/support/provider_conformance.ts";
import { createProvider } from "../registry.ts";
import type { ProviderRequest } from "../types.ts";
import { AnthropicProvider, thinkingBudgetFor } from "./provider.ts";
import "../builtin_kinds.ts";

const signal = (): AbortSignal => new AbortController().signal;

/** The exact `thinking` bytes of a body: what Anthropic's prompt cache keys on. */
function thinkingBytes(bodyText: string): string {
  const start = bodyText.lastIndexOf(',"thinking":');
  const end = bodyText.lastIndexOf(',"max_tokens":');
  return start < 0 ? "" : bodyText.slice(start + ',"thinking":'.length, end);
}

function anthropic(url: string, options: Record<string, unknown>): AnthropicProvider {
  const provider = createProvider("anthropic", {
    name: "fake",
    model: "fake-model",
    baseUrl: url,
    apiKey: TEST_KEY,
    options,
  });
  assert.ok(provider instanceof AnthropicProvider);
  return provider;
}

/** Sends one request per cap; returns each request's `cacheKey` as reported beforehand. */
async function send(provider: AnthropicProvider, caps: number[]): Promise<string[]> {
  const keys: string[] = [];
  for (const cap of caps) {
    const req: ProviderRequest = request(undefined, { maxOutputTokens: cap });
    keys.push(provider.cacheKey(req));
    await collect(provider.stream(req, { signal: signal() }));
  }
  return keys;
}

Deno.test("anthropic thinking bytes hold while the window shrinks, and move only when forced", async () => {
  // A window shrinking by ~1350 tokens a request, as in the measured session (each cap used
  // to halve into a new budget_tokens: 6254, 4904, 3544, ...).
  const caps: number[] = [];
  for (let cap = 32_768; cap > 9_000; cap -= 1_350) caps.push(cap);
  await withFake("anthropic", caps.map((_, i) => ({ text: `r${i}` })), async (fake) => {
    const provider = anthropic(fake.url, { thinking: "enabled" });
    assert.equal(provider.thinkingBudget, 16_384, "half the kind's default cap, chosen once");
    const keys = await send(provider, caps);
    const sent = fake.requests.map((r) => thinkingBytes(r.bodyText));
    const holds = caps.filter((cap) => cap >= 16_384 + 1_024).length;
    assert.ok(holds >= 10, `${holds} requests can hold the session budget`);
    for (let i = 0; i < holds; i++) {
      assert.equal(sent[i], '{"type":"enabled","budget_tokens":16384}', `request ${i}`);
    }
    // Forced: the cap cannot hold budget + answer reserve; the next rung, which then holds.
    for (let i = holds; i < caps.length; i++) {
      assert.equal(sent[i], '{"type":"enabled","budget_tokens":8192}', `request ${i}`);
    }
    assert.equal(new Set(sent).size, 2, "exactly one change in the session");
    // What the cache-break meter reads agrees with the bytes sent, request by request.
    assert.deepEqual(keys, sent.map((t) => `thinking:${t}`));
  });
});

Deno.test("a configured thinking_budget is the session budget and steps down only when forced", async () => {
  const script = [{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }];
  await withFake("anthropic", script, async (fake) => {
    const provider = anthropic(fake.url, { thinking: "enabled", thinking_budget: 4096 });
    const keys = await send(provider, [16_000, 5_120, 2_000, 16_000]);
    const sent = fake.requests.map((r) => thinkingBytes(r.bodyText));
    assert.deepEqual(sent, [
      '{"type":"enabled","budget_tokens":4096}',
      '{"type":"enabled","budget_tokens":4096}',
      // Not even the smallest budget fits beside an answer: thinking cannot run.
      "",
      '{"type":"enabled","budget_tokens":4096}',
    ]);
    assert.deepEqual(keys, sent.map((t) => `thinking:${t}`));
  });
});

Deno.test("the cache key follows a learned output limit like the body does", async () => {
  await withFake("anthropic", [
    {
      status: 400,
      body: JSON.parse(anthropicErrorBody(
        "max_tokens: 32768 > 8192, which is the maximum allowed number of output tokens",
        "invalid_request_error",
      )),
    },
    { text: "a" },
    { text: "b" },
  ], async (fake) => {
    const provider = anthropic(fake.url, { thinking: "enabled" });
    const req = request();
    assert.equal(provider.cacheKey(req), 'thinking:{"type":"enabled","budget_tokens":16384}');
    await collect(provider.stream(req, { signal: signal() }));
    // The resend after the 400 and every later request carry the rung the learned limit holds.
    const after = provider.cacheKey(req);
    assert.equal(after, 'thinking:{"type":"enabled","budget_tokens":4096}');
    await collect(provider.stream(req, { signal: signal() }));
    assert.deepEqual(fake.requests.map((r) => thinkingBytes(r.bodyText)), [
      '{"type":"enabled","budget_tokens":16384}',
      '{"type":"enabled","budget_tokens":4096}',
      '{"type":"enabled","budget_tokens":4096}',
    ]);
    assert.equal(provider.body(req), fake.requests[2].bodyText, "body() is what stream sends");
  });
});

Deno.test("thinkingBudgetFor halves the session budget until budget and answer fit the cap", () => {
  assert.equal(thinkingBudgetFor(16_384, 32_768), 16_384);
  assert.equal(thinkingBudgetFor(16_384, 17_408), 16_384);
  assert.equal(thinkingBudgetFor(16_384, 17_407), 8_192);
  assert.equal(thinkingBudgetFor(16_384, 3_072), 2_048);
  assert.equal(thinkingBudgetFor(16_384, 2_047), undefined);
  assert.equal(thinkingBudgetFor(4_096, 2_048), 1_024);
});
