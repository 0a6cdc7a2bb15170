import assert from "node:assert/strict";
import { openAiErrorBody } from "../../tests/fake_llm/mod.ts";
import {
  callsOf,
  collect,
  providerConformance,
  request,
  TEST_KEY,
  textOf,
  withFake,
} from "../../tests/support/provider_conformance.ts";
import { createProvider, type ProviderSettings } from "../registry.ts";
import type { Message } from "../types.ts";
import "../builtin_kinds.ts";

providerConformance({
  kind: "responses",
  format: "responses",
  path: "/v1/responses",
  lengthFinish: "max_output_tokens",
  errorBody: (message, type) => JSON.parse(openAiErrorBody(message, type)),
});

const signal = (): AbortSignal => new AbortController().signal;

function settings(url: string, extra: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    name: "fake",
    model: "fake-model",
    baseUrl: url,
    apiKey: TEST_KEY,
    retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 },
    ...extra,
  };
}

Deno.test("responses sends a stateless body with instructions, tools and input", async () => {
  await withFake("responses", [{ text: "ok" }], async (fake) => {
    await collect(
      createProvider("responses", settings(fake.url)).stream(
        request(undefined, { reasoningEffort: "high", temperature: 0.2, maxOutputTokens: 900 }),
        { signal: signal() },
      ),
    );
    const [req] = fake.requests;
    assert.equal(req.path, "/v1/responses");
    assert.equal(req.headers["authorization"], `Bearer ${TEST_KEY}`);
    const body = req.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), [
      "model",
      "stream",
      "store",
      "include",
      "temperature",
      "reasoning",
      "tools",
      "instructions",
      "input",
      "max_output_tokens",
    ]);
    assert.equal(body.store, false);
    assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
    assert.deepEqual(body.reasoning, { effort: "high" });
    assert.equal(body.instructions, "You are terse.");
    assert.deepEqual((body.tools as unknown[])[0], {
      type: "function",
      name: "read_file",
      description: "Read a file.",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      strict: false,
    });
    assert.deepEqual(body.input, [{ role: "user", content: "hi" }]);
    assert.equal(body.max_output_tokens, 900);
  });
});

Deno.test("responses replays encrypted reasoning, calls and outputs as input items", async () => {
  await withFake("responses", [
    {
      reasoning: "Check a.ts first.",
      reasoningSignature: "gAAAAABenc==",
      toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' }],
    },
    { text: "Done." },
  ], async (fake) => {
    const provider = createProvider("responses", settings(fake.url));
    const history: Message[] = [{ role: "user", content: "show a.ts" }];
    const turn = await collect(provider.stream(request(history), { signal: signal() }));
    assert.equal(textOf(turn, "reasoning"), "Check a.ts first.");
    assert.deepEqual(turn.find((c) => c.type === "reasoning_signature"), {
      type: "reasoning_signature",
      signature: "gAAAAABenc==",
    });
    history.push({
      role: "assistant",
      content: "",
      reasoning: textOf(turn, "reasoning"),
      reasoningSignature: "gAAAAABenc==",
      toolCalls: callsOf(turn),
    });
    history.push({ role: "tool", toolCallId: "call_1", name: "read_file", content: "export {};" });
    await collect(provider.stream(request(history), { signal: signal() }));
    const input = (fake.requests[1].body as { input: unknown[] }).input;
    assert.deepEqual(input.slice(1), [
      {
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Check a.ts first." }],
        encrypted_content: "gAAAAABenc==",
      },
      { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' },
      { type: "function_call_output", call_id: "call_1", output: "export {};" },
    ]);
    const previous = fake.requests[0].bodyText;
    const cut = previous.lastIndexOf("]");
    assert.ok(fake.requests[1].bodyText.startsWith(previous.slice(0, cut)));
  });
});

Deno.test("responses reads raw reasoning text and normalizes cached-token usage", async () => {
  await withFake("responses", [{
    reasoning: "raw chain of thought",
    responsesReasoning: "text",
    text: "hi",
    usage: {
      input_tokens: 2006,
      input_tokens_details: { cached_tokens: 1920 },
      output_tokens: 300,
      output_tokens_details: { reasoning_tokens: 128 },
    },
  }], async (fake) => {
    const provider = createProvider(
      "responses",
      settings(fake.url, { options: { encrypted_reasoning: false } }),
    );
    const chunks = await collect(provider.stream(request(), { signal: signal() }));
    assert.equal(textOf(chunks, "reasoning"), "raw chain of thought");
    assert.ok(!chunks.some((c) => c.type === "reasoning_signature"));
    assert.equal((fake.requests[0].body as Record<string, unknown>).include, undefined);
    assert.deepEqual(chunks.find((c) => c.type === "usage"), {
      type: "usage",
      usage: {
        promptTokens: 2006,
        completionTokens: 300,
        cacheHitTokens: 1920,
        cacheMissTokens: 86,
        reasoningTokens: 128,
      },
    });
  });
});

Deno.test("responses turns response.failed into a typed error", async () => {
  await withFake("responses", [
    {
      streamError: {
        message: "Your input exceeds the context window of this model.",
        code: "context_length_exceeded",
      },
      streamErrorEvent: "response.failed",
    },
  ], async (fake) => {
    const provider = createProvider("responses", settings(fake.url));
    await assert.rejects(
      collect(provider.stream(request(), { signal: signal() })),
      (error: unknown) =>
        error instanceof Error && (error as { code?: string }).code === "context_overflow",
    );
  });
});
