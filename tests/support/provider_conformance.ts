/**
 * Robustness tests every streaming provider kind must pass, run against the fake server
 * speaking that kind's wire format. Each kind's `provider_test.ts` calls
 * {@link providerConformance} and adds its own wire-specific tests.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type FakeFormat, type FakeLlm, type FakeStep, startFakeLlm } from "../fake_llm/mod.ts";
import { ContextOverflowError, ProviderError } from "../../providers/errors.ts";
import { createProvider, type ProviderSettings } from "../../providers/registry.ts";
import type { Chunk, Message, ProviderRequest, ToolCall } from "../../providers/types.ts";

/** What differs between kinds for the shared tests. */
export interface KindCase {
  kind: string;
  format: FakeFormat;
  /** The path the kind posts to when given the fake's `/v1` base URL. */
  path: string;
  /** The wire finish value that means "stopped at the output limit". */
  lengthFinish: string;
  /** A JSON error body in the kind's shape. */
  errorBody(message: string, type?: string): Record<string, unknown>;
  /** Extra settings for every provider of this kind. */
  settings?: Partial<ProviderSettings>;
}

/** Test secret; must never appear in an error message. */
export const TEST_KEY = "sk-test-0123456789abcdefSECRET";
const FAST_RETRY = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 };

const TOOLS = [
  {
    name: "read_file",
    description: "Read a file.",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
  {
    name: "write_file",
    description: "Write a file.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
    },
  },
];

/** Collects every chunk of a stream into `seen`. */
export async function collect(
  iterable: AsyncIterable<Chunk>,
  seen: Chunk[] = [],
): Promise<Chunk[]> {
  for await (const chunk of iterable) seen.push(chunk);
  return seen;
}

/** The concatenated text or reasoning of chunks. */
export function textOf(chunks: Chunk[], type: "text" | "reasoning" = "text"): string {
  return chunks.map((c) => (c.type === type ? c.text : "")).join("");
}

/** The tool calls among chunks. */
export function callsOf(chunks: Chunk[]): ToolCall[] {
  return chunks.flatMap((c) => (c.type === "tool_call" ? [c.call] : []));
}

/** Resolves with the rejection of `promise`; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

/** A plain request with the two test tools. */
export function request(
  messages: Message[] = [{ role: "user", content: "hi" }],
  extra: Partial<ProviderRequest> = {},
): ProviderRequest {
  return { model: "fake-model", system: "You are terse.", messages, tools: TOOLS, ...extra };
}

/** Runs `fn` with a fake speaking `format`, closing it afterwards. */
export async function withFake(
  format: FakeFormat,
  script: FakeStep[],
  fn: (fake: FakeLlm) => Promise<void>,
): Promise<void> {
  const fake = await startFakeLlm({ script, format });
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

const signal = (): AbortSignal => new AbortController().signal;

// Long enough that a cut after 1400 bytes lands inside the text in every format.
const LONG_TEXT = "A long answer that streams in many small pieces, so that a connection " +
  "dropped or stalled after the first kilobyte or so of the event stream always cuts it " +
  "somewhere in the middle, whatever the framing overhead of the wire format happens to be.";

/** Registers the shared robustness tests for one kind. */
export function providerConformance(c: KindCase): void {
  const make = (fake: FakeLlm, extra: Partial<ProviderSettings> = {}) =>
    createProvider(c.kind, {
      name: "fake",
      model: "fake-model",
      baseUrl: fake.url,
      apiKey: TEST_KEY,
      retry: FAST_RETRY,
      idleTimeoutMs: 5_000,
      ...c.settings,
      ...extra,
    });
  const run = (fake: FakeLlm, req = request(), extra: Partial<ProviderSettings> = {}) =>
    collect(make(fake, extra).stream(req, { signal: signal() }));
  const test = (name: string, steps: FakeStep[], fn: (fake: FakeLlm) => Promise<void>) =>
    Deno.test(`${c.kind} ${name}`, () => withFake(c.format, steps, fn));

  test("streams reasoning then text, then usage and done", [{
    reasoning: "Think: 2+2 — четыре.",
    text: "The answer is 4 ✅.",
  }], async (fake) => {
    const chunks = await run(fake);
    assert.equal(fake.requests[0].path, c.path);
    assert.equal(textOf(chunks, "reasoning"), "Think: 2+2 — четыре.");
    assert.equal(textOf(chunks), "The answer is 4 ✅.");
    const lastReasoning = chunks.findLastIndex((ch) => ch.type === "reasoning");
    assert.ok(lastReasoning < chunks.findIndex((ch) => ch.type === "text"));
    assert.ok(chunks.filter((ch) => ch.type === "text").length > 1, "text arrives in pieces");
    assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "stop" });
    assert.equal(chunks.at(-2)?.type, "usage");
  });

  for (const chunkBytes of [1, 3, 7]) {
    test(`reassembles tool calls split into ${chunkBytes}-byte pieces`, [{
      reasoning: "Need to edit — 編集.",
      text: "Writing.",
      toolCalls: [
        {
          id: "call_ab12",
          name: "write_file",
          arguments: '{"path":"src/ünï.ts","content":"a \\"q\\"\\n"}',
        },
        { id: "call_cd34", name: "read_file", arguments: '{"path":"b.ts"}' },
      ],
      chunkBytes,
      lineEnding: chunkBytes === 3 ? "crlf" : "lf",
    }], async (fake) => {
      const chunks = await run(fake);
      assert.deepEqual(callsOf(chunks), [
        {
          id: "call_ab12",
          name: "write_file",
          arguments: '{"path":"src/ünï.ts","content":"a \\"q\\"\\n"}',
        },
        { id: "call_cd34", name: "read_file", arguments: '{"path":"b.ts"}' },
      ]);
      assert.equal(textOf(chunks, "reasoning"), "Need to edit — 編集.");
      assert.equal(textOf(chunks), "Writing.");
      assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "tool_calls" });
    });
  }

  test("ignores comments, keep-alives and unknown event types", [{
    text: "still fine",
    unknownEvents: true,
    toolCalls: [{ id: "call_u", name: "read_file", arguments: '{"path":"x"}' }],
  }], async (fake) => {
    const chunks = await run(fake);
    assert.equal(textOf(chunks), "still fine");
    assert.deepEqual(callsOf(chunks).map((call) => call.id), ["call_u"]);
    assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "tool_calls" });
  });

  test("repairs a tool call cut off at the output limit when only brackets are missing", [{
    toolCalls: [{ id: "call_t", name: "read_file", arguments: '{"path":"a.ts"' }],
    finishReason: c.lengthFinish,
  }], async (fake) => {
    const chunks = await run(fake);
    assert.deepEqual(callsOf(chunks), [
      { id: "call_t", name: "read_file", arguments: '{"path":"a.ts"}' },
    ]);
    assert.deepEqual(chunks.at(-1), { type: "done", finishReason: "length" });
  });

  test("marks an ambiguous cut-off tool call instead of guessing or sending {}", [{
    toolCalls: [
      { id: "call_ok", name: "read_file", arguments: '{"path":"first.ts"}' },
      { id: "call_cut", name: "write_file", arguments: '{"path":"a.ts","content":"half a li' },
    ],
    finishReason: c.lengthFinish,
  }], async (fake) => {
    const [first, cut] = callsOf(await run(fake));
    assert.deepEqual(first, { id: "call_ok", name: "read_file", arguments: '{"path":"first.ts"}' });
    assert.equal(cut.arguments, '{"path":"a.ts","content":"half a li');
    assert.match(cut.argumentsError ?? "", /cut off at the output token limit/);
  });

  test("recovers tool calls written into content, only for known tools", [
    {
      text: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>" +
        '{"path":"a.ts"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    },
    {
      text: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>rm_rf<｜tool▁sep｜>" +
        '{"path":"/"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    },
  ], async (fake) => {
    const recovered = await run(fake);
    const calls = callsOf(recovered);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].name, "read_file");
    assert.equal(calls[0].arguments, '{"path":"a.ts"}');
    assert.match(calls[0].id, /^call_recovered_[0-9a-f]{8}_0$/);
    assert.deepEqual(recovered.at(-1), { type: "done", finishReason: "tool_calls" });
    const unknown = await run(fake);
    assert.deepEqual(callsOf(unknown), []);
    assert.deepEqual(unknown.at(-1), { type: "done", finishReason: "stop" });
  });

  test("recovers a tool call written into reasoning", [{
    reasoning:
      'I will call it.<tool_call>{"name":"read_file","arguments":{"path":"r.ts"}}</tool_call>',
  }], async (fake) => {
    const chunks = await run(fake);
    assert.deepEqual(callsOf(chunks).map((call) => [call.name, call.arguments]), [
      ["read_file", '{"path":"r.ts"}'],
    ]);
  });

  test("retries 429 and 5xx and then succeeds", [
    { status: 429 },
    { status: 500 },
    { status: 503 },
    { text: "after the wait" },
  ], async (fake) => {
    const chunks = await run(fake);
    assert.equal(textOf(chunks), "after the wait");
    assert.equal(fake.requests.length, 4);
    assert.equal(fake.requests[0].bodyText, fake.requests[3].bodyText);
  });

  test("gives up after the policy's attempts", [{ status: 500 }, { status: 500 }], async (fake) => {
    const error = await rejection(
      run(fake, request(), { retry: { ...FAST_RETRY, maxAttempts: 2 } }),
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_server");
    assert.equal(error.status, 500);
    assert.equal(fake.requests.length, 2);
  });

  test(
    "surfaces a 401 once, without the key",
    [{ status: 401 }, { text: "never" }],
    async (fake) => {
      const error = await rejection(run(fake));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.code, "provider_auth");
      assert.ok(!error.message.includes(TEST_KEY));
      assert.equal(fake.requests.length, 1);
    },
  );

  test("maps a context-length 400 to ContextOverflowError", [{
    status: 400,
    body: c.errorBody("prompt is too long: 210000 tokens > 200000 maximum"),
  }], async (fake) => {
    const error = await rejection(run(fake));
    assert.ok(error instanceof ContextOverflowError);
    assert.equal(error.code, "context_overflow");
    assert.equal(fake.requests.length, 1);
  });

  test("learns the real output limit from a 400 and resends once", [
    {
      status: 400,
      body: c.errorBody(
        "max_tokens: 500000 > 131072, which is the maximum allowed number of output tokens",
      ),
    },
    { text: "fits now" },
    { text: "still clamped" },
  ], async (fake) => {
    const learned: number[] = [];
    const provider = make(fake, { onOutputLimit: (limit) => learned.push(limit) });
    const big = request(undefined, { maxOutputTokens: 500_000 });
    const chunks = await collect(provider.stream(big, { signal: signal() }));
    assert.equal(textOf(chunks), "fits now");
    assert.deepEqual(learned, [131072]);
    await collect(provider.stream(big, { signal: signal() }));
    const caps = fake.requests.map((r) => capOf(r.body));
    assert.deepEqual(caps, [500_000, 131072, 131072]);
  });

  test("reports other 400s as bad requests without retrying", [{
    status: 400,
    body: c.errorBody("Unsupported parameter: 'foo'."),
  }], async (fake) => {
    const error = await rejection(run(fake));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_bad_request");
    assert.match(error.message, /Unsupported parameter/);
    assert.equal(fake.requests.length, 1);
  });

  test("retries a reset before the headers and before any output", [
    { reset: "before-headers" },
    { reset: "mid-stream", text: "lost", afterBytes: 10 },
    { text: "kept" },
  ], async (fake) => {
    assert.equal(textOf(await run(fake)), "kept");
    assert.equal(fake.requests.length, 3);
  });

  test("does not retry a reset after output was shown", [
    { reset: "mid-stream", text: LONG_TEXT, chunkBytes: 16, afterBytes: 1400 },
    { text: "never" },
  ], async (fake) => {
    const seen: Chunk[] = [];
    const error = await rejection(
      collect(make(fake).stream(request(), { signal: signal() }), seen),
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_network");
    const shown = textOf(seen);
    assert.ok(shown.length > 0 && LONG_TEXT.startsWith(shown) && shown !== LONG_TEXT);
    assert.equal(fake.requests.length, 1);
  });

  test("detects a stalled stream with the idle timeout", [
    { hang: "mid-stream", text: LONG_TEXT, afterBytes: 1400 },
  ], async (fake) => {
    const seen: Chunk[] = [];
    const started = performance.now();
    const error = await rejection(
      collect(make(fake, { idleTimeoutMs: 200 }).stream(request(), { signal: signal() }), seen),
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_idle_timeout");
    assert.ok(performance.now() - started < 3_000);
    assert.ok(textOf(seen).length > 0);
    assert.equal(fake.requests.length, 1, "no retry after output");
  });

  test("retries a silent server before any output", [
    { hang: "before-headers" },
    { text: "awake" },
  ], async (fake) => {
    assert.equal(textOf(await run(fake, request(), { idleTimeoutMs: 150 })), "awake");
    assert.equal(fake.requests.length, 2);
  });

  test("treats a stream cut off before finishing as an error", [
    { text: "half an ans", end: "truncated" },
  ], async (fake) => {
    const seen: Chunk[] = [];
    const error = await rejection(
      collect(
        make(fake, { retry: { ...FAST_RETRY, maxAttempts: 1 } }).stream(request(), {
          signal: signal(),
        }),
        seen,
      ),
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_stream");
    assert.match(error.message, /truncated/);
    assert.equal(textOf(seen), "half an ans");
    assert.ok(!seen.some((ch) => ch.type === "done"));
  });

  test("turns an in-stream error into a provider error", [
    { text: "partial", streamError: { message: "Overloaded", type: "overloaded_error" } },
  ], async (fake) => {
    const error = await rejection(
      run(fake, request(), { retry: { ...FAST_RETRY, maxAttempts: 1 } }),
    );
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, "provider_stream");
    assert.match(error.message, /Overloaded/);
  });

  test("retries an in-stream overload that came before any output", [
    { streamError: { message: "Overloaded", type: "overloaded_error", code: "overloaded_error" } },
    { text: "recovered" },
  ], async (fake) => {
    assert.equal(textOf(await run(fake)), "recovered");
    assert.equal(fake.requests.length, 2);
  });

  test("stops promptly on abort and throws the signal's reason", [
    { hang: "mid-stream", text: LONG_TEXT, afterBytes: 1400 },
  ], async (fake) => {
    const controller = new AbortController();
    const reason = new Error("user pressed Esc");
    let abortedAt = 0;
    const error = await rejection((async () => {
      for await (const _ of make(fake).stream(request(), { signal: controller.signal })) {
        if (abortedAt === 0) {
          abortedAt = performance.now();
          controller.abort(reason);
        }
      }
    })());
    assert.equal(error, reason);
    assert.ok(performance.now() - abortedAt < 500);
  });

  test("uses request_url verbatim", [{ text: "a" }], async (fake) => {
    const origin = new URL(fake.url).origin;
    const url = `${origin}/proxy/x${c.path}?api-version=2025-01-01`;
    await run(fake, request(), { baseUrl: "http://127.0.0.1:9/ignored", requestUrl: url });
    assert.equal(fake.requests[0].path, `/proxy/x${c.path}?api-version=2025-01-01`);
  });
}

/** The output cap a request body carries, whatever the kind calls it. */
export function capOf(body: unknown): number | undefined {
  const record = (body ?? {}) as Record<string, unknown>;
  for (const key of ["max_tokens", "max_output_tokens", "max_completion_tokens"]) {
    if (typeof record[key] === "number") return record[key] as number;
  }
  return undefined;
}
