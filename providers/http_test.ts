import assert from "node:assert/strict";
import { startFakeLlm } from "../tests/fake_llm/mod.ts";
import { ContextOverflowError, ProviderError } from "./errors.ts";
import {
  defaultErrorMessage,
  displayUrl,
  endpointSource,
  httpError,
  isContextOverflowMessage,
  networkError,
  networkFailure,
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
    assert.equal(error.message.split("\n")[0], `p: HTTP ${status}: boom`);
    assert.match(error.message, /\nfix: \S/, `status ${status} has a fix line`);
    assert.equal(error.message.split("\n").length, 2, `status ${status}: one fix line`);
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
  assert.equal(leaked.message.split("\n")[0], "p: HTTP 401 Unauthorized: bad key [redacted]");
  const html = httpError({
    status: 502,
    statusText: "Bad Gateway",
    bodyText: "<html>\n  <body>upstream   down</body></html>",
  }, ctx);
  assert.equal(
    html.message.split("\n")[0],
    "p: HTTP 502 Bad Gateway: <html> <body>upstream down</body></html>",
  );
  assert.equal(
    httpError({ status: 503, statusText: "Service Unavailable", bodyText: "" }, ctx).message
      .split("\n")[0],
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
      error.message.startsWith(`p: POST ${url}: network error: `) &&
      error.message.endsWith(
        `\nfix: is the server running at ${new URL(url).origin}? Start it, or correct the host ` +
          "and port in base_url",
      ),
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
        error.message.startsWith(
          `p: POST ${fake.url}/chat/completions: HTTP 529: overloaded_error`,
        ),
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

Deno.test("a 404 names the full URL and says what Reasonix appends to base_url", () => {
  const url = "http://127.0.0.1:5/v1/chat/completions/chat/completions";
  const error = httpError({ status: 404, statusText: "Not Found", bodyText: body("nope") }, {
    ...ctx,
    url,
    endpoint: { key: "base_url", appended: "/chat/completions" },
  });
  assert.equal(
    error.message,
    `p: POST ${url}: HTTP 404 Not Found: nope\n` +
      "fix: check base_url; Reasonix appends /chat/completions to it, so base_url is the API " +
      "root (such as https://api.example.com/v1)",
  );
  assert.equal(error.fix, error.message.split("\nfix: ")[1]);
  const verbatim = httpError({ status: 404, statusText: "", bodyText: "" }, {
    ...ctx,
    url,
    endpoint: { key: "request_url" },
  });
  assert.match(verbatim.message, /\nfix: check request_url: it is requested as written/);
  // Without knowing the kind's path, every path is named.
  const unknown = httpError({ status: 404, statusText: "", bodyText: "" }, { ...ctx, url });
  assert.match(
    unknown.message,
    /Reasonix appends \/chat\/completions \(or \/messages, \/responses\)/,
  );
});

Deno.test("endpointSource tells base_url and the appended path from a verbatim URL", () => {
  const url = "https://api.example.com/anthropic/v1/messages";
  assert.deepEqual(endpointSource({ baseUrl: "https://api.example.com/anthropic/" }, url), {
    key: "base_url",
    appended: "/v1/messages",
  });
  assert.deepEqual(endpointSource({ requestUrl: url, baseUrl: "https://x" }, url), {
    key: "request_url",
  });
  assert.deepEqual(endpointSource({ chatUrl: url }, url), { key: "chat_url" });
});

Deno.test("network failures each get their own fix line", () => {
  const url = "https://llm.example.com:8443/v1/chat/completions";
  const fixFor = (detail: string) =>
    networkError(new TypeError("fetch failed", { cause: new Error(detail) }), { ...ctx, url })
      .fix;
  const cases: [string, ReturnType<typeof networkFailure>, RegExp][] = [
    [
      "tcp connect error: Connection refused (os error 111)",
      "refused",
      /^is the server running at https:\/\/llm\.example\.com:8443\?/,
    ],
    [
      "dns error: failed to lookup address information: Name or service not known",
      "dns",
      /^the host name llm\.example\.com does not resolve/,
    ],
    [
      "received corrupt message of type InvalidContentType",
      "tls",
      /^the TLS \(https\) handshake with https:\/\/llm\.example\.com:8443 failed: use http:\/\//,
    ],
    ["invalid peer certificate: UnknownIssuer", "tls", /make its certificate trusted/],
    ["tcp connect error: Connection timed out (os error 110)", "timeout", /did not answer in time/],
    ["connection closed before message completed", "reset", /closed the connection/],
    ["something new", "other", /is reachable from this machine/],
  ];
  for (const [detail, kind, fix] of cases) {
    assert.equal(networkFailure(detail), kind, detail);
    assert.match(fixFor(detail) ?? "", fix, detail);
  }
});

Deno.test("network and HTTP messages never show credentials from the URL or the key", () => {
  const url =
    "https://user:hunter2-password@llm.example.com/v1/chat/completions?api-key=sk-secret-value-123&x=1";
  assert.equal(
    displayUrl(url),
    "https://llm.example.com/v1/chat/completions?api-key=[redacted]&x=1",
  );
  const net = networkError(new TypeError("fetch failed"), { ...ctx, url });
  const http = httpError({ status: 404, statusText: "", bodyText: body("sk-secret-value-123") }, {
    ...ctx,
    url,
  });
  for (const error of [net, http]) {
    assert.ok(!error.message.includes("hunter2"), error.message);
    assert.ok(!error.message.includes("sk-secret-value-123"), error.message);
    assert.match(error.message, /POST https:\/\/llm\.example\.com\/v1\/chat\/completions\?/);
  }
});
