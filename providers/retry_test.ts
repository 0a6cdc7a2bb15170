import assert from "node:assert/strict";
import { ProviderError } from "./errors.ts";
import {
  DEFAULT_RETRY_POLICY,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  retryAfterFromHeaders,
  retryDelayMs,
  retryingStream,
  sleep,
} from "./retry.ts";

const FAST = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 };
const transient = () => new ProviderError("provider_server", "HTTP 503", { retryable: true });

async function drain<T>(iterable: AsyncIterable<T>, seen: T[] = []): Promise<T[]> {
  for await (const item of iterable) seen.push(item);
  return seen;
}

Deno.test("retry-after accepts seconds and HTTP dates, capped at 60 s", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("0", now), 0);
  assert.equal(parseRetryAfter("2", now), 2_000);
  assert.equal(parseRetryAfter("1.5", now), 1_500);
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now), 5_000);
  assert.equal(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now), 0);
  assert.equal(parseRetryAfter("3600", now), MAX_RETRY_AFTER_MS);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});

Deno.test("retry-after-ms wins over retry-after", () => {
  assert.equal(
    retryAfterFromHeaders(new Headers({ "retry-after-ms": "250", "retry-after": "9" })),
    250,
  );
  assert.equal(retryAfterFromHeaders(new Headers({ "retry-after": "9" })), 9_000);
  assert.equal(retryAfterFromHeaders(new Headers()), undefined);
});

Deno.test("backoff doubles with equal jitter and stops at the cap", () => {
  const policy = DEFAULT_RETRY_POLICY;
  assert.equal(retryDelayMs(policy, 1, { random: () => 0 }), 250);
  assert.equal(retryDelayMs(policy, 1, { random: () => 1 }), 500);
  assert.equal(retryDelayMs(policy, 3, { random: () => 1 }), 2_000);
  assert.equal(retryDelayMs(policy, 10, { random: () => 1 }), 8_000);
  assert.equal(retryDelayMs(policy, 10, { random: () => 0 }), 4_000);
  assert.equal(retryDelayMs(policy, 2, { retryAfterMs: 1_234 }), 1_234);
  assert.equal(retryDelayMs(policy, 2, { retryAfterMs: 600_000 }), MAX_RETRY_AFTER_MS);
});

Deno.test("sleep rejects with the abort reason as soon as the signal fires", async () => {
  const controller = new AbortController();
  const started = performance.now();
  setTimeout(() => controller.abort("cancelled"), 10);
  await assert.rejects(sleep(10_000, { signal: controller.signal }), (e) => e === "cancelled");
  assert.ok(performance.now() - started < 1_000);
});

Deno.test("retryingStream retries a retryable failure before the first item", async () => {
  const attempts: number[] = [];
  const notices: number[] = [];
  const items = await drain(retryingStream(async function* (n) {
    attempts.push(n);
    if (n < 3) throw transient();
    yield "ok";
  }, {
    signal: new AbortController().signal,
    policy: FAST,
    onRetry: (r) => notices.push(r.attempt),
  }));
  assert.deepEqual(items, ["ok"]);
  assert.deepEqual(attempts, [1, 2, 3]);
  assert.deepEqual(notices, [1, 2]);
});

Deno.test("retryingStream never retries after an item reached the caller", async () => {
  let attempts = 0;
  const seen: string[] = [];
  await assert.rejects(
    drain(
      retryingStream(async function* () {
        attempts++;
        yield "shown";
        throw transient();
      }, { signal: new AbortController().signal, policy: FAST }),
      seen,
    ),
    ProviderError,
  );
  assert.equal(attempts, 1);
  assert.deepEqual(seen, ["shown"]);
});

Deno.test("retryingStream passes non-retryable errors through at once", async () => {
  let attempts = 0;
  const auth = new ProviderError("provider_auth", "HTTP 401");
  await assert.rejects(
    drain(retryingStream(async function* () {
      attempts++;
      yield* [];
      throw auth;
    }, { signal: new AbortController().signal, policy: FAST })),
    (e) => e === auth,
  );
  assert.equal(attempts, 1);
});

Deno.test("retryingStream stops after maxAttempts and throws the last error", async () => {
  let attempts = 0;
  await assert.rejects(
    drain(retryingStream(async function* () {
      attempts++;
      yield* [];
      throw transient();
    }, { signal: new AbortController().signal, policy: FAST })),
    (e) => e instanceof ProviderError && e.code === "provider_server",
  );
  assert.equal(attempts, 3);
});

Deno.test("retryingStream throws the abort reason instead of retrying", async () => {
  const controller = new AbortController();
  let attempts = 0;
  await assert.rejects(
    drain(retryingStream(async function* () {
      attempts++;
      controller.abort("user");
      yield* [];
      throw transient();
    }, { signal: controller.signal, policy: FAST })),
    (e) => e === "user",
  );
  assert.equal(attempts, 1);
});
