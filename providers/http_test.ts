import assert from "node:assert/strict";
import { startFakeLlm } from "../tests/fake_llm/mod.ts";
import { ContextOverflowError, ProviderError } from "./errors.ts";
import {
  defaultErrorMessage,
  httpError,
  isContextOverflowMessage,
  postForStream,
  redactSecrets,
} from "./http.ts";

const ctx = { provider: "p", secrets: ["sk-secret-value-123"] };
const body = (message: string, code: string | null = null) =>
  JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code } });

Deno.test("http errors map statuses to codes and retryability", () => {
  const cases: [number, string, boolean][] = [
    [401, "provider_auth", false],
    [402, "provider_auth", false],
    [403, "provider_auth", false],
    [400, "provider_bad_request", false],
    [404, "provider_bad_request", false],
    [422, "provider_bad_request", false],
    [408, "provider_server", true],
    [429, "provider_rate_limited", true],
    [500, "provider_server", true],
    [502, "provider_server", true],
    [503, "provider_server", true],
    [529, "provider_server", true],
  ];
  for (const [status, code, retryable] of cases) {
    const error = httpError({ status, statusText: "", bodyText: body("boom") }, ctx);
    assert.equal(error.code, code, `status ${status}`);
    assert.equal(error.retryable, retryable, `status ${status}`);
    assert.equal(error.status, status);
    assert.equal(error.message, `p: HTTP ${status}: boom`);
  }
});

Deno.test("http errors recognise context-length messages only on client errors", () => {
  for (
    const message of [
      "This model's maximum context length is 8192 tokens.",
      "prompt is too long: 201000 tokens > 200000 maximum",
      "Your input exceeds the context window of this model",
      "Request has too many tokens",
    ]
  ) {
    assert.ok(isContextOverflowMessage(message), message);
    assert.ok(
      httpError({ status: 400, statusText: "Bad Request", bodyText: body(message) }, ctx) instanceof
        ContextOverflowError,
    );
  }
  assert.ok(
    httpError(
      { status: 400, statusText: "", bodyText: body("Invalid", "context_length_exceeded") },
      ctx,
    ) instanceof
      ContextOverflowError,
  );
  assert.equal(
    httpError({ status: 429, statusText: "", bodyText: body("too many tokens per minute") }, ctx)
      .code,
    "provider_rate_limited",
  );
  assert.equal(
    httpError({ status: 400, statusText: "", bodyText: body("bad temperature") }, ctx).code,
    "provider_bad_request",
  );
});

Deno.test("http errors keep 429 retry-after and refuse to retry an exhausted quota", () => {
  const limited = httpError({ status: 429, statusText: "", bodyText: body("slow down") }, {
    ...ctx,
    retryAfterMs: 1500,
  });
  assert.equal(limited.retryAfterMs, 1500);
  const quota = httpError({
    status: 429,
    statusText: "",
    bodyText: body("You exceeded your current quota", "insufficient_quota"),
  }, ctx);
  assert.equal(quota.retryable, false);
});

Deno.test("http error messages never contain secrets and tolerate non-JSON bodies", () => {
  const leaked = httpError({
    status: 401,
    statusText: "Unauthorized",
    bodyText: body("bad key sk-secret-value-123"),
  }, ctx);
  assert.equal(leaked.message, "p: HTTP 401 Unauthorized: bad key [redacted]");
  const html = httpError({
    status: 502,
    statusText: "Bad Gateway",
    bodyText: "<html>\n  <body>upstream   down</body></html>",
  }, ctx);
  assert.equal(html.message, "p: HTTP 502 Bad Gateway: <html> <body>upstream down</body></html>");
  assert.equal(
    httpError({ status: 503, statusText: "Service Unavailable", bodyText: "" }, ctx).message,
    "p: HTTP 503 Service Unavailable: Service Unavailable",
  );
  assert.equal(redactSecrets("short abc", ["abc"]), "short abc");
});

Deno.test("default error extraction covers the common shapes", () => {
  assert.equal(defaultErrorMessage({ error: { message: "a" } }), "a");
  assert.equal(
    defaultErrorMessage({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    }),
    "Overloaded",
  );
  assert.equal(defaultErrorMessage({ error: "b" }), "b");
  assert.equal(defaultErrorMessage({ message: "c" }), "c");
  assert.equal(defaultErrorMessage({ detail: "d" }), "d");
  assert.equal(defaultErrorMessage({ nothing: 1 }), undefined);
});

Deno.test("postForStream maps a refused connection to a retryable network error", async () => {
  const fake = await startFakeLlm({ script: [] });
  const url = `${fake.url}/chat/completions`;
  await fake.close();
  await assert.rejects(
    postForStream({ ...ctx, url, headers: {}, body: "{}", signal: new AbortController().signal }),
    (error: unknown) =>
      error instanceof ProviderError && error.code === "provider_network" && error.retryable &&
      error.message.startsWith("p: network error: "),
  );
});

Deno.test("postForStream uses a wire-specific message extractor", async () => {
  const fake = await startFakeLlm({
    script: [{
      status: 529,
      body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    }],
  });
  try {
    await assert.rejects(
      postForStream({
        ...ctx,
        url: `${fake.url}/chat/completions`,
        headers: {},
        body: "{}",
        signal: new AbortController().signal,
        extractMessage: (b) => (b as { error: { type: string } }).error.type,
      }),
      (error: unknown) =>
        error instanceof ProviderError && error.code === "provider_server" &&
        error.message === "p: HTTP 529: overloaded_error",
    );
  } finally {
    await fake.close();
  }
});

Deno.test("postForStream gives up on missing headers with provider_idle_timeout", async () => {
  const fake = await startFakeLlm({ script: [{ hang: "before-headers" }] });
  try {
    await assert.rejects(
      postForStream({
        ...ctx,
        url: `${fake.url}/chat/completions`,
        headers: {},
        body: "{}",
        signal: new AbortController().signal,
        idleTimeoutMs: 100,
      }),
      (error: unknown) =>
        error instanceof ProviderError && error.code === "provider_idle_timeout" && error.retryable,
    );
  } finally {
    await fake.close();
  }
});

Deno.test("postForStream rejects a JSON answer to a streaming request", async () => {
  const fake = await startFakeLlm({
    script: () => ({ status: 200, body: { error: { message: "streaming is disabled here" } } }),
  });
  try {
    await assert.rejects(
      postForStream({
        ...ctx,
        url: `${fake.url}/chat/completions`,
        headers: {},
        body: "{}",
        signal: new AbortController().signal,
      }),
      (error: unknown) =>
        error instanceof ProviderError && error.code === "provider_stream" &&
        /expected an event stream but got application\/json: streaming is disabled here/.test(
          error.message,
        ),
    );
  } finally {
    await fake.close();
  }
});
