import assert from "node:assert/strict";
import { anthropicErrorBody } from "../../tests/fake_llm/mod.ts";
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
import type { Chunk, Message } from "../types.ts";
import "../builtin_kinds.ts";

providerConformance({
  kind: "anthropic",
  format: "anthropic",
  path: "/v1/messages",
  lengthFinish: "max_tokens",
  errorBody: (message, type) => JSON.parse(anthropicErrorBody(message, type)),
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

/** Settings that claim an endpoint but reach the fake through an injected fetch. */
function rerouted(fakeUrl: string, baseUrl: string, extra: Partial<ProviderSettings> = {}) {
  const target = `${fakeUrl}/messages`;
  return settings(fakeUrl, {
    baseUrl,
    fetch: (_input, init) => fetch(target, init),
    ...extra,
  });
}

Deno.test("anthropic sends x-api-key, anthropic-version and a cache-marked body", async () => {
  await withFake("anthropic", [{ text: "ok" }], async (fake) => {
    const provider = createProvider(
      "anthropic",
      settings(fake.url, { headers: { "X-Title": "t" } }),
    );
    await collect(provider.stream(request(), { signal: signal() }));
    const [req] = fake.requests;
    assert.equal(req.path, "/v1/messages");
    assert.equal(req.headers["x-api-key"], TEST_KEY);
    assert.equal(req.headers["anthropic-version"], "2023-06-01");
    assert.equal(req.headers["authorization"], undefined);
    assert.equal(req.headers["x-title"], "t");
    const body = req.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), [
      "model",
      "stream",
      "tools",
      "system",
      "messages",
      "max_tokens",
    ]);
    assert.deepEqual(body.system, [
      { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
    ]);
    const tools = body.tools as Record<string, unknown>[];
    assert.deepEqual(tools.map((t) => Object.keys(t)), [
      ["name", "description", "input_schema"],
      ["name", "description", "input_schema", "cache_control"],
    ]);
    assert.deepEqual(body.messages, [
      {
        role: "user",
        content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }],
      },
    ]);
    // Nothing is known about this endpoint: the kind's default cap.
    assert.equal(body.max_tokens, 32768);
    const markers = req.bodyText.split('"cache_control"').length - 1;
    assert.ok(markers <= 4, `${markers} breakpoints`);
  });
});

Deno.test("anthropic sends official DeepSeek's 384K automatic cap when none is given", async () => {
  await withFake("anthropic", [{ text: "a" }, { text: "b" }], async (fake) => {
    const provider = createProvider(
      "anthropic",
      rerouted(fake.url, "https://api.deepseek.com/anthropic"),
    );
    await collect(provider.stream(request(), { signal: signal() }));
    await collect(
      provider.stream(request(undefined, { maxOutputTokens: 1000 }), { signal: signal() }),
    );
    assert.deepEqual(fake.requests.map((r) => (r.body as { max_tokens: number }).max_tokens), [
      393216,
      1000,
    ]);
  });
});

Deno.test("anthropic thinking: budget_tokens only where the endpoint honours it", async () => {
  await withFake("anthropic", [{ text: "a" }, { text: "b" }, { text: "c" }], async (fake) => {
    const options = { thinking: "enabled", thinking_budget: 4096 };
    const req = request(undefined, { maxOutputTokens: 16000, temperature: 0 });
    await collect(
      createProvider("anthropic", settings(fake.url, { options })).stream(req, {
        signal: signal(),
      }),
    );
    await collect(
      createProvider(
        "anthropic",
        rerouted(fake.url, "https://api.deepseek.com/anthropic", { options }),
      ).stream(req, { signal: signal() }),
    );
    await collect(
      createProvider("anthropic", settings(fake.url, { options: { thinking: "disabled" } }))
        .stream({ ...req, reasoningEffort: "high" }, { signal: signal() }),
    );
    const bodies = fake.requests.map((r) => r.body as Record<string, unknown>);
    assert.deepEqual(bodies[0].thinking, { type: "enabled", budget_tokens: 4096 });
    assert.equal(bodies[0].temperature, undefined, "thinking runs at the default temperature");
    assert.deepEqual(bodies[1].thinking, { type: "enabled" });
    assert.deepEqual(bodies[2].thinking, { type: "disabled" });
    assert.equal(bodies[2].temperature, 0);
    assert.deepEqual(bodies[2].output_config, { effort: "high" });
  });
  assert.throws(
    () => createProvider("anthropic", settings("http://x", { options: { thinking: "on" } })),
    TypeError,
  );
});

Deno.test("anthropic replays thinking with its signature and merges tool results", async () => {
  const reasoning = "The user wants both files.";
  await withFake("anthropic", [
    {
      reasoning,
      reasoningSignature: "EqQBsig/+==",
      text: "Reading.",
      toolCalls: [
        { id: "toolu_1", name: "read_file", arguments: '{"path":"a.ts"}' },
        { id: "toolu_2", name: "read_file", arguments: '{"path":"b.ts"}' },
      ],
    },
    { text: "Done." },
  ], async (fake) => {
    const provider = createProvider("anthropic", settings(fake.url));
    const history: Message[] = [{ role: "user", content: "show a.ts and b.ts" }];
    const turn = await collect(provider.stream(request(history), { signal: signal() }));
    const signature = turn.find((c) => c.type === "reasoning_signature");
    assert.deepEqual(signature, { type: "reasoning_signature", signature: "EqQBsig/+==" });
    const sigIndex = turn.indexOf(signature!);
    assert.ok(sigIndex > turn.findLastIndex((c) => c.type === "reasoning"));
    history.push({
      role: "assistant",
      content: textOf(turn),
      reasoning: textOf(turn, "reasoning"),
      reasoningSignature: "EqQBsig/+==",
      toolCalls: callsOf(turn),
    });
    history.push(
      { role: "tool", toolCallId: "toolu_1", name: "read_file", content: "export {};" },
      { role: "tool", toolCallId: "toolu_2", name: "read_file", content: "nope", isError: true },
    );
    await collect(provider.stream(request(history), { signal: signal() }));
    const sent = (fake.requests[1].body as { messages: unknown[] }).messages;
    assert.deepEqual(sent.slice(1), [
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: reasoning, signature: "EqQBsig/+==" },
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
          { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "b.ts" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "export {};" },
          {
            type: "tool_result",
            tool_use_id: "toolu_2",
            content: "nope",
            is_error: true,
            cache_control: { type: "ephemeral" },
          },
        ],
      },
    ]);
  });
});

Deno.test("anthropic normalizes cache reads and writes into prompt, hit and miss", async () => {
  await withFake("anthropic", [{
    text: "hello",
    usage: {
      input_tokens: 20,
      cache_read_input_tokens: 1800,
      cache_creation_input_tokens: 180,
      output_tokens: 42,
    },
  }], async (fake) => {
    const chunks = await collect(
      createProvider("anthropic", settings(fake.url)).stream(request(), { signal: signal() }),
    );
    assert.deepEqual(chunks.find((c) => c.type === "usage"), {
      type: "usage",
      usage: {
        promptTokens: 2000,
        completionTokens: 42,
        cacheHitTokens: 1800,
        cacheMissTokens: 200,
      },
    });
  });
});

Deno.test("anthropic bodies extend the previous one up to its rolling cache marker", async () => {
  const script = [{ text: "a1" }, {
    text: "a2",
    toolCalls: [{ id: "toolu_x", name: "read_file", arguments: '{"path":"x"}' }],
  }, { text: "a3" }];
  await withFake("anthropic", script, async (fake) => {
    const provider = createProvider("anthropic", settings(fake.url));
    const history: Message[] = [];
    const turn = async (): Promise<Chunk[]> => {
      const chunks = await collect(
        provider.stream(request(history, { temperature: 0 }), { signal: signal() }),
      );
      const calls = callsOf(chunks);
      history.push({
        role: "assistant",
        content: textOf(chunks),
        ...(calls.length ? { toolCalls: calls } : {}),
      });
      return chunks;
    };
    history.push({ role: "user", content: "q1 — ünïcode" });
    await turn();
    history.push({ role: "user", content: "q2" });
    await turn();
    history.push({ role: "tool", toolCallId: "toolu_x", name: "read_file", content: "x" });
    await turn();
    for (let i = 1; i < 3; i++) {
      const previous = fake.requests[i - 1].bodyText;
      const current = fake.requests[i].bodyText;
      const marker = previous.lastIndexOf(',"cache_control"');
      assert.ok(current.startsWith(previous.slice(0, marker)), `request ${i + 1}`);
      assert.ok(
        fake.requests[i].sharedPrefixBytes >=
          new TextEncoder().encode(previous.slice(0, marker)).byteLength,
      );
    }
  });
});
