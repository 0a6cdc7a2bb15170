/**
 * Bounded exponential backoff for transient provider failures. Wire-neutral: every provider
 * kind wraps its attempts in {@link retryingStream}.
 *
 * @module
 */
import { ProviderError } from "./errors.ts";
import type { RetryPolicy } from "./registry.ts";

export type { RetryPolicy } from "./registry.ts";

/** Four attempts, 0.5 s doubling up to 8 s, so a flaky endpoint costs at most ~12 s of waiting. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
});

/** A server asking for a longer pause than this is waited for only this long. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Parses a `Retry-After` value (delay seconds or an HTTP date) into milliseconds, capped at
 * {@link MAX_RETRY_AFTER_MS}. Returns undefined when absent or unparseable.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Math.round(Number(text) * 1000);
  } else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    ms = Math.max(0, date - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/**
 * Reads the server's requested delay from response headers: `retry-after-ms` (sent by OpenAI)
 * wins over `retry-after`.
 */
export function retryAfterFromHeaders(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) {
    return Math.min(Math.round(Number(ms.trim())), MAX_RETRY_AFTER_MS);
  }
  return parseRetryAfter(headers.get("retry-after"), now);
}

/**
 * Delay before the next attempt after `failedAttempt` (1-based) failed. A server-requested
 * delay is honoured as is (capped); otherwise "equal jitter": half the exponential step is
 * fixed and half random, so synchronized clients spread out without retrying instantly.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  failedAttempt: number,
  opts: { retryAfterMs?: number; random?: () => number } = {},
): number {
  const { retryAfterMs, random = Math.random } = opts;
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER_MS);
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, opts: { signal?: AbortSignal } = {}): Promise<void> {
  const { signal } = opts;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Reported before each retry, for logs and status lines. */
export interface RetryNotice {
  /** The attempt that failed, 1-based. */
  attempt: number;
  delayMs: number;
  error: ProviderError;
}

/** Options for {@link retryingStream}. */
export interface RetryOptions {
  signal: AbortSignal;
  policy?: RetryPolicy;
  onRetry?: (notice: RetryNotice) => void;
  /** Injected for deterministic tests. */
  random?: () => number;
}

/**
 * Runs `attempt` and re-runs it after a backoff when it fails with a retryable
 * `ProviderError` before yielding anything. Once an item reached the caller, output was shown,
 * so a later failure is thrown as is. Aborts are never retried: the signal's reason is thrown.
 */
export async function* retryingStream<T>(
  attempt: (attemptNumber: number) => AsyncIterable<T>,
  opts: RetryOptions,
): AsyncGenerator<T> {
  const policy = opts.policy ?? DEFAULT_RETRY_POLICY;
  const maxAttempts = Math.max(1, Math.floor(policy.maxAttempts));
  for (let n = 1;; n++) {
    if (opts.signal.aborted) throw opts.signal.reason;
    let yielded = false;
    try {
      for await (const item of attempt(n)) {
        yielded = true;
        yield item;
      }
      return;
    } catch (error) {
      if (opts.signal.aborted) throw opts.signal.reason;
      if (yielded || n >= maxAttempts) throw error;
      if (!(error instanceof ProviderError) || !error.retryable) throw error;
      const delayMs = retryDelayMs(policy, n, {
        retryAfterMs: error.retryAfterMs,
        random: opts.random,
      });
      opts.onRetry?.({ attempt: n, delayMs, error });
      await sleep(delayMs, { signal: opts.signal });
    }
  }
}
