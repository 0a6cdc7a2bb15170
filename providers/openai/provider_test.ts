import assert from "node:assert/strict";
import { type FakeLlm, type FakeStep, startFakeLlm } from "../../tests/fake_llm/mod.ts";
import { ContextOverflowError, ProviderError } from "../errors.ts";
import { createProvider, type ProviderSettings } from "../registry.ts";
import type { Chunk, Message, ProviderRequest, ToolCall } from "../types.ts";
import "../builtin_kinds.ts";

const KEY = "sk-test-0123456789abcdefSECRET";
const FAST_RETRY = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 };

function providerFor(fake: FakeLlm, extra: Partial<ProviderSettings> = {}) {
  return createProvider("openai", {
    name: "fake",
    model: "deepseek-chat",
    baseUrl: fake.url,
    apiKey: KEY,
    retry: FAST_RETRY,
    idleTimeoutMs: 5_000,
    ...extra,
  });
}

function request(messages: Message[] = [{ role: "user", content: "hi" }]): ProviderRequest {
  return { model: "deepseek-chat", system: "You are terse.", messages, tools: [] };
}

async function collect(
  iterable: AsyncIterable<Chunk>,
  seen: Chunk[] = [],
): Promise<Chunk[]> {
  for await (const chunk of iterable) seen.push(chunk);
  return seen;
}

function textOf(chunks: Chunk[], type: "text" | "reasoning" = "text"): string {
  return chunks.map((c) => (c.type === type ? c.text : "")).join("");
}

function callsOf(chunks: Chunk[]): ToolCall[] {
  return chunks.flatMap((c) => (c.type === "tool_call" ? [c.call] : []));
}

async function withFake(
  script: FakeStep[] | ((req: never, i: number) => FakeStep),
  fn: (fake: FakeLlm) => Promise<void>,
): Promise<void> {
  const fake = await startFakeLlm({ script: script as FakeStep[] });
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

const signal = (): AbortSignal => new AbortController().signal;

Deno.test("openai streams reasoning then text, then usage and done", async () => {
  await withFake(
    [{ reasoning: "Think: 2+2 — четыре.", text: "The answer is 4 ✅." }],
    async (fake) => {
      const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
      assert.equal(textOf(chunks, "reasoning"), "Think: 2+2 — четыре.");
      assert.equal(textOf(chunks), "The answer is 4 ✅.");
      const firstText = chunks.findIndex((c) => c.type === "text");
      const lastReasoning = chunks.findLastIndex((c) => c.type === "reasoning");
      assert.ok(lastReasoning < firstText);
      assert.ok(chunks.filter((c) => c.type === "text").length > 1, "text arrives in pieces");
      assert.deepEqual(chunks.slice(-2).map((c) => c.type), ["usage", "done"]);
      assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "stop" });
      assert.equal(fake.requests.length, 1);
    },
  );
});

Deno.test("openai sends the documented URL, headers and body", async () => {
  await withFake([{ text: "ok" }], async (fake) => {
    const provider = providerFor(fake, {
      baseUrl: `${fake.url}/`,
      headers: { "X-Title": "reasonix-test" },
    });
    await collect(provider.stream(request(), { signal: signal() }));
    const [req] = fake.requests;
    assert.equal(req.path, "/v1/chat/completions");
    assert.equal(req.headers["authorization"], `Bearer ${KEY}`);
    assert.equal(req.headers["content-type"], "application/json");
    assert.equal(req.headers["accept"], "text/event-stream");
    assert.equal(req.headers["x-title"], "reasonix-test");
    assert.deepEqual(req.body, {
      model: "deepseek-chat",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "hi" },
      ],
    });
  });
});

Deno.test("openai uses request_url and chat_url verbatim", async () => {
  await withFake([{ text: "a" }, { text: "b" }], async (fake) => {
    const origin = new URL(fake.url).origin;
    await collect(
      providerFor(fake, {
        baseUrl: "http://127.0.0.1:9/ignored",
        requestUrl: `${origin}/proxy/openai/chat/completions?api-version=2024-10-21`,
      }).stream(request(), { signal: signal() }),
    );
    await collect(
      providerFor(fake, { baseUrl: undefined, chatUrl: `${origin}/legacy/chat/completions` })
        .stream(request(), { signal: signal() }),
    );
    assert.deepEqual(fake.requests.map((r) => r.path), [
      "/proxy/openai/chat/completions?api-version=2024-10-21",
      "/legacy/chat/completions",
    ]);
  });
});

for (const chunkBytes of [1, 3, 7]) {
  Deno.test(`openai reassembles tool calls split into ${chunkBytes}-byte pieces`, async () => {
    const args = '{"path":"src/ünï.ts","old_string":"a \\"quoted\\" line\\n","limit":3}';
    await withFake([{
      reasoning: "Need to edit — 編集.",
      toolCalls: [{ id: "call_ab12", name: "edit_file", arguments: args }],
      chunkBytes,
    }], async (fake) => {
      const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
      assert.deepEqual(callsOf(chunks), [{ id: "call_ab12", name: "edit_file", arguments: args }]);
      assert.equal(textOf(chunks, "reasoning"), "Need to edit — 編集.");
      assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "tool_calls" });
      // Only complete calls leave the provider: one chunk per call.
      assert.equal(chunks.filter((c) => c.type === "tool_call").length, 1);
    });
  });
}

Deno.test("openai emits several parallel tool calls whole and in index order", async () => {
  const calls = [
    { id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' },
    { id: "call_2", name: "grep", arguments: '{"pattern":"TODO","glob":"**/*.ts"}' },
    { id: "call_3", name: "list_dir", arguments: "{}" },
  ];
  await withFake([{ text: "Let me look.", toolCalls: calls }], async (fake) => {
    const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
    assert.deepEqual(callsOf(chunks), calls);
    assert.equal(textOf(chunks), "Let me look.");
    const types = chunks.map((c) => c.type);
    assert.ok(types.lastIndexOf("text") < types.indexOf("tool_call"));
    assert.deepEqual(types.slice(-2), ["usage", "done"]);
  });
});

Deno.test("openai normalizes DeepSeek cache usage from the shared prefix", async () => {
  await withFake(
    [{ text: "one" }, { text: "two", reasoning: "hmm, let me think" }],
    async (fake) => {
      const provider = providerFor(fake);
      const first: Message[] = [{ role: "user", content: "first question" }];
      await collect(provider.stream(request(first), { signal: signal() }));
      const second: Message[] = [
        ...first,
        { role: "assistant", content: "one" },
        { role: "user", content: "second question" },
      ];
      const chunks = await collect(provider.stream(request(second), { signal: signal() }));
      const usage = chunks.find((c) => c.type === "usage");
      assert.ok(usage?.type === "usage");
      const req = fake.requests[1];
      const prompt = Math.ceil(new TextEncoder().encode(req.bodyText).byteLength / 4);
      const hit = Math.floor(req.sharedPrefixBytes / 4);
      assert.ok(hit > 0);
      assert.deepEqual(usage.usage, {
        promptTokens: prompt,
        completionTokens: Math.ceil(("two".length + "hmm, let me think".length) / 4),
        cacheHitTokens: hit,
        cacheMissTokens: prompt - hit,
        reasoningTokens: Math.ceil("hmm, let me think".length / 4),
      });
    },
  );
});

Deno.test("openai normalizes OpenAI cached_tokens usage and derives the miss", async () => {
  await withFake([{
    text: "hello",
    usageStyle: "openai",
    usage: {
      prompt_tokens: 2006,
      completion_tokens: 300,
      total_tokens: 2306,
      prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 128, audio_tokens: 0 },
    },
  }], async (fake) => {
    const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
    const usage = chunks.find((c) => c.type === "usage");
    assert.deepEqual(usage, {
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

Deno.test("openai reads usage that rides on the finish chunk", async () => {
  await withFake([{
    text: "hi",
    usagePlacement: "finish-chunk",
    usage: { prompt_tokens: 50, prompt_cache_hit_tokens: 32, prompt_cache_miss_tokens: 18 },
  }], async (fake) => {
    const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
    const usage = chunks.find((c) => c.type === "usage");
    assert.ok(usage?.type === "usage");
    assert.equal(usage.usage.promptTokens, 50);
    assert.equal(usage.usage.cacheHitTokens, 32);
    assert.equal(usage.usage.cacheMissTokens, 18);
    assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "stop" });
  });
});

Deno.test("openai retries a 429 and then succeeds", async () => {
  await withFake([{ status: 429 }, { text: "after the wait" }], async (fake) => {
    const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
    assert.equal(textOf(chunks), "after the wait");
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.requests[0].bodyText, fake.requests[1].bodyText);
  });
});

Deno.test("openai retries 500 and 503 with backoff", async () => {
  await withFake([{ status: 500 }, { status: 503 }, { text: "recovered" }], async (fake) => {
    const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
    assert.equal(textOf(chunks), "recovered");
    assert.equal(fake.requests.length, 3);
  });
});

Deno.test("openai gives up after the policy's attempts", async () => {
  await withFake([{ status: 500 }, { status: 500 }, { status: 500 }], async (fake) => {
    const provider = providerFor(fake, { retry: { ...FAST_RETRY, maxAttempts: 3 } });
    const error = await rejection(collect(provider.stream(request(), { signal: signal() })));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_server");
    assert.equal(error.status, 500);
    assert.match(error.message, /HTTP 500.*The server had an error/);
    assert.equal(fake.requests.length, 3);
  });
});

Deno.test("openai surfaces a 401 with the provider's message, once, without the key", async () => {
  await withFake([{ status: 401 }, { text: "never" }], async (fake) => {
    const error = await rejection(
      collect(providerFor(fake).stream(request(), { signal: signal() })),
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_auth");
    assert.equal(error.status, 401);
    assert.equal(error.retryable, false);
    assert.match(error.message, /HTTP 401 Unauthorized: Incorrect API key provided/);
    assert.ok(!error.message.includes(KEY));
    assert.ok(!error.message.includes("Bearer"));
    assert.equal(fake.requests.length, 1);
  });
});

Deno.test("openai scrubs the key even when the server echoes it", async () => {
  await withFake([{
    status: 403,
    body: { error: { message: `key ${KEY} is disabled`, type: "permission_error" } },
  }], async (fake) => {
    const error = await rejection(
      collect(providerFor(fake).stream(request(), { signal: signal() })),
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_auth");
    assert.ok(!error.message.includes(KEY));
    assert.match(error.message, /key \[redacted\] is disabled/);
  });
});

Deno.test("openai maps a 400 context-length error to ContextOverflowError", async () => {
  await withFake([{
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 65536 tokens. However, you requested 70123 tokens (70123 in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_request_error",
      },
    },
  }], async (fake) => {
    const error = await rejection(
      collect(providerFor(fake).stream(request(), { signal: signal() })),
    );
    assert.ok(error instanceof ContextOverflowError);
    assert.equal(error.code, "context_overflow");
    assert.equal(error.status, 400);
    assert.match(error.message, /maximum context length is 65536/);
    assert.equal(fake.requests.length, 1);
  });
});

Deno.test("openai reports other 400s as bad requests with the provider's words", async () => {
  await withFake([{ status: 422 }], async (fake) => {
    const error = await rejection(
      collect(providerFor(fake).stream(request(), { signal: signal() })),
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_bad_request");
    assert.match(error.message, /HTTP 422 .*Failed to deserialize the JSON body/);
  });
});

Deno.test("openai retries a connection reset before the headers", async () => {
  await withFake([{ reset: "before-headers" }, { text: "second try" }], async (fake) => {
    const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
    assert.equal(textOf(chunks), "second try");
    assert.equal(fake.requests.length, 2);
  });
});

Deno.test("openai reports a network error when every attempt is reset", async () => {
  await withFake([{ reset: "before-headers" }, { reset: "before-headers" }], async (fake) => {
    const provider = providerFor(fake, { retry: { ...FAST_RETRY, maxAttempts: 2 } });
    const error = await rejection(collect(provider.stream(request(), { signal: signal() })));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_network");
    assert.match(error.message, /connection closed before message completed/);
    assert.equal(fake.requests.length, 2);
  });
});

Deno.test("openai does not retry a reset after output was shown", async () => {
  const text = "This sentence is long enough to be cut in the middle of the stream.";
  await withFake(
    [{ reset: "mid-stream", text, chunkBytes: 16 }, { text: "never" }],
    async (fake) => {
      const seen: Chunk[] = [];
      const error = await rejection(
        collect(providerFor(fake).stream(request(), { signal: signal() }), seen),
      );
      assert.ok(error instanceof ProviderError);
      assert.equal(error.code, "provider_network");
      const shown = textOf(seen);
      assert.ok(shown.length > 0 && text.startsWith(shown) && shown !== text);
      assert.equal(fake.requests.length, 1);
    },
  );
});

Deno.test("openai retries a reset that happens before any output", async () => {
  await withFake(
    [{ reset: "mid-stream", text: "lost", afterBytes: 10 }, { text: "kept" }],
    async (fake) => {
      const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
      assert.equal(textOf(chunks), "kept");
      assert.equal(fake.requests.length, 2);
    },
  );
});

Deno.test("openai times out a server that never answers", async () => {
  await withFake([{ hang: "before-headers" }], async (fake) => {
    const provider = providerFor(fake, {
      idleTimeoutMs: 150,
      retry: { ...FAST_RETRY, maxAttempts: 1 },
    });
    const started = performance.now();
    const error = await rejection(collect(provider.stream(request(), { signal: signal() })));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_idle_timeout");
    assert.ok(performance.now() - started < 2_000);
  });
});

Deno.test("openai times out a stream that goes silent after output", async () => {
  await withFake(
    [{ hang: "mid-stream", text: "partial answer that stops", afterBytes: 700 }],
    async (fake) => {
      const provider = providerFor(fake, { idleTimeoutMs: 200 });
      const seen: Chunk[] = [];
      const error = await rejection(
        collect(provider.stream(request(), { signal: signal() }), seen),
      );
      assert.ok(error instanceof ProviderError);
      assert.equal(error.code, "provider_idle_timeout");
      assert.ok(textOf(seen).length > 0);
      assert.equal(fake.requests.length, 1, "no retry after output");
    },
  );
});

Deno.test("openai retries a silent server before any output", async () => {
  await withFake([{ hang: "before-headers" }, { text: "awake" }], async (fake) => {
    const provider = providerFor(fake, { idleTimeoutMs: 150 });
    const chunks = await collect(provider.stream(request(), { signal: signal() }));
    assert.equal(textOf(chunks), "awake");
    assert.equal(fake.requests.length, 2);
  });
});

Deno.test("openai stops promptly on abort and throws the signal's reason", async () => {
  await withFake(
    [{ hang: "mid-stream", text: "streaming along nicely", afterBytes: 700 }],
    async (fake) => {
      const controller = new AbortController();
      const reason = new Error("user pressed Esc");
      const seen: Chunk[] = [];
      let abortedAt = 0;
      const run = (async () => {
        for await (
          const chunk of providerFor(fake).stream(request(), { signal: controller.signal })
        ) {
          seen.push(chunk);
          if (abortedAt === 0) {
            abortedAt = performance.now();
            controller.abort(reason);
          }
        }
      })();
      const error = await rejection(run);
      assert.equal(error, reason);
      assert.ok(performance.now() - abortedAt < 500);
      assert.ok(seen.length >= 1);
    },
  );
});

Deno.test("openai releases the connection when the caller stops reading early", async () => {
  const text = "a long answer the caller does not want to finish reading";
  await withFake([{ text, delayMs: 5 }, { text: "next" }], async (fake) => {
    const provider = providerFor(fake);
    for await (const chunk of provider.stream(request(), { signal: signal() })) {
      if (chunk.type === "text") break;
    }
    // The same provider keeps working, and closing the fake finds nothing left hanging.
    const chunks = await collect(provider.stream(request(), { signal: signal() }));
    assert.equal(textOf(chunks), "next");
  });
});

Deno.test("openai abort during a retry backoff is not retried or wrapped", async () => {
  await withFake([{ status: 503 }, { text: "never" }], async (fake) => {
    const controller = new AbortController();
    const provider = providerFor(fake, {
      retry: { maxAttempts: 4, baseDelayMs: 10_000, maxDelayMs: 10_000 },
    });
    const started = performance.now();
    setTimeout(() => controller.abort(), 100);
    const error = await rejection(
      collect(provider.stream(request(), { signal: controller.signal })),
    );
    assert.ok(error instanceof DOMException);
    assert.equal(error.name, "AbortError");
    assert.ok(performance.now() - started < 1_000);
    assert.equal(fake.requests.length, 1);
  });
});

Deno.test("openai request bodies extend the previous body byte for byte", async () => {
  await withFake([{ text: "a1" }, { text: "a2" }, { text: "a3" }], async (fake) => {
    const provider = providerFor(fake);
    const tools = [{
      name: "read_file",
      description: "Read a file.",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    }];
    const history: Message[] = [];
    for (const question of ["q1 — ünïcode", "q2", "q3"]) {
      history.push({ role: "user", content: question });
      const chunks = await collect(
        provider.stream({ ...request(history), tools, temperature: 0 }, { signal: signal() }),
      );
      history.push({ role: "assistant", content: textOf(chunks) });
    }
    const bytes = (text: string) => new TextEncoder().encode(text).byteLength;
    for (let i = 1; i < 3; i++) {
      const previous = fake.requests[i - 1].bodyText;
      const current = fake.requests[i].bodyText;
      assert.ok(previous.endsWith("]}"));
      assert.ok(current.startsWith(previous.slice(0, -2)));
      assert.equal(fake.requests[i].sharedPrefixBytes, bytes(previous) - 2);
    }
  });
});

Deno.test("openai round-trips reasoning_content on tool-call turns", async () => {
  const reasoning = "The user wants the file; call read_file first.";
  await withFake([
    { reasoning, toolCalls: [{ id: "call_r1", name: "read_file", arguments: '{"path":"a.ts"}' }] },
    { text: "Done." },
  ], async (fake) => {
    const provider = providerFor(fake);
    const history: Message[] = [{ role: "user", content: "show a.ts" }];
    const turn = await collect(provider.stream(request(history), { signal: signal() }));
    history.push({
      role: "assistant",
      content: textOf(turn),
      reasoning: textOf(turn, "reasoning"),
      toolCalls: callsOf(turn),
    });
    history.push({ role: "tool", toolCallId: "call_r1", name: "read_file", content: "export {};" });
    await collect(provider.stream(request(history), { signal: signal() }));
    const sent = (fake.requests[1].body as { messages: unknown[] }).messages;
    assert.deepEqual(sent.slice(2), [
      {
        role: "assistant",
        content: null,
        reasoning_content: reasoning,
        tool_calls: [{
          id: "call_r1",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"a.ts"}' },
        }],
      },
      { role: "tool", tool_call_id: "call_r1", content: "export {};" },
    ]);
  });
});

Deno.test("openai reads OpenRouter-style reasoning deltas", async () => {
  await withFake(
    [{ reasoning: "thinking aloud", text: "ok", reasoningField: "reasoning" }],
    async (fake) => {
      const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
      assert.equal(textOf(chunks, "reasoning"), "thinking aloud");
      assert.equal(textOf(chunks), "ok");
    },
  );
});

Deno.test("openai accepts CRLF framing and a stream without [DONE]", async () => {
  await withFake(
    [{ text: "crlf ok", lineEnding: "crlf", end: "no-done", chunkBytes: 1 }],
    async (fake) => {
      const chunks = await collect(providerFor(fake).stream(request(), { signal: signal() }));
      assert.equal(textOf(chunks), "crlf ok");
      assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "stop" });
    },
  );
});

Deno.test("openai treats a stream cut off before finishing as an error", async () => {
  await withFake([{ text: "half an ans", end: "truncated" }, { text: "never" }], async (fake) => {
    const seen: Chunk[] = [];
    const error = await rejection(
      collect(providerFor(fake).stream(request(), { signal: signal() }), seen),
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_stream");
    assert.match(error.message, /truncated/);
    assert.equal(textOf(seen), "half an ans");
    assert.ok(!seen.some((c) => c.type === "done"));
    assert.equal(fake.requests.length, 1);
  });
});

Deno.test("openai turns an in-stream error object into a provider error", async () => {
  await withFake([
    { text: "partial", streamError: { message: "Upstream model crashed", type: "server_error" } },
    {
      streamError: {
        message: "prompt is too long: 210000 tokens > 200000 maximum",
        type: "invalid_request_error",
        code: "context_length_exceeded",
      },
    },
  ], async (fake) => {
    const provider = providerFor(fake, { retry: { ...FAST_RETRY, maxAttempts: 1 } });
    const first = await rejection(collect(provider.stream(request(), { signal: signal() })));
    assert.ok(first instanceof ProviderError);
    assert.equal(first.code, "provider_stream");
    assert.match(first.message, /Upstream model crashed/);
    const second = await rejection(collect(provider.stream(request(), { signal: signal() })));
    assert.ok(second instanceof ContextOverflowError);
  });
});

Deno.test("openai reports a wrong endpoint path as a bad request", async () => {
  await withFake([{ text: "unused" }], async (fake) => {
    const provider = providerFor(fake, {
      requestUrl: `${new URL(fake.url).origin}/v1/completions`,
    });
    const error = await rejection(collect(provider.stream(request(), { signal: signal() })));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_bad_request");
    assert.match(error.message, /HTTP 404 Not Found: Invalid URL \(POST \/v1\/completions\)/);
  });
});

Deno.test("openai uses an injected fetch", async () => {
  await withFake([{ text: "via injected fetch" }], async (fake) => {
    const urls: string[] = [];
    const tracking: typeof fetch = (input, init) => {
      urls.push(String(input));
      return fetch(input, init);
    };
    const chunks = await collect(
      providerFor(fake, { fetch: tracking }).stream(request(), { signal: signal() }),
    );
    assert.equal(textOf(chunks), "via injected fetch");
    assert.deepEqual(urls, [`${fake.url}/chat/completions`]);
  });
});
