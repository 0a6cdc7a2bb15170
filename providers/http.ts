/**
 * HTTP plumbing shared by every provider kind: the streaming POST and the mapping of HTTP and
 * network failures to `ProviderError`. Wire-neutral: each kind supplies a function that pulls
 * the human-readable message out of its parsed error body.
 *
 * @module
 */
import { ContextOverflowError, ProviderError } from "./errors.ts";
import { redactSecrets } from "./redact.ts";
import { retryAfterFromHeaders } from "./retry.ts";

/** Extracts the provider's own error message from a parsed JSON error body. */
export type ErrorMessageExtractor = (body: unknown) => string | undefined;

/** Context every error mapping needs. */
export interface ErrorContext {
  /** Configured provider name, prefixed to messages. */
  provider: string;
  /** Wire-specific message extraction; defaults to {@link defaultErrorMessage}. */
  extractMessage?: ErrorMessageExtractor;
  /** Values that must never appear in an error message (API keys, auth header values). */
  secrets?: readonly string[];
}

/** Options for {@link postForStream}. */
export interface PostOptions extends ErrorContext {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** Give up with `provider_idle_timeout` when the response headers take longer than this. */
  idleTimeoutMs?: number;
  fetch?: typeof fetch;
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_MESSAGE_CHARS = 1_000;

const CONTEXT_OVERFLOW =
  /maximum context length|context[_ ]length[_ ]exceeded|prompt is too long|exceeds? the context window|too many tokens|input is too long|reduce the length of the messages/i;

/** Whether a provider's error text says the prompt no longer fits the model's window. */
export function isContextOverflowMessage(text: string): boolean {
  return CONTEXT_OVERFLOW.test(text);
}

/**
 * Finds the message in the common error shapes: `{"error":{"message"}}` (OpenAI, DeepSeek,
 * Anthropic), `{"error":"..."}`, `{"message"}` and `{"detail"}` (gateways).
 */
export function defaultErrorMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body;
  if (typeof body !== "object" || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null) {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === "string") return message;
  }
  for (const key of ["message", "detail"]) {
    if (typeof record[key] === "string") return record[key] as string;
  }
  return undefined;
}

export { redactSecrets } from "./redact.ts";

/**
 * Maps an HTTP failure to a typed error. 401/402/403 → `provider_auth`; 400/404/413/422 →
 * `provider_bad_request` or `ContextOverflowError`; 429 → `provider_rate_limited`; 408, 409 and
 * 5xx (including 529 "overloaded") → `provider_server`. The message carries the status and the
 * provider's own words, with secrets removed.
 */
export function httpError(
  response: { status: number; statusText: string; bodyText: string },
  ctx: ErrorContext & { retryAfterMs?: number },
): ProviderError {
  const { status, statusText, bodyText } = response;
  const providerMessage = extractMessage(bodyText, ctx.extractMessage) ||
    statusText || "no error message";
  const head = `HTTP ${status}${statusText ? ` ${statusText}` : ""}`;
  const message = redactSecrets(`${ctx.provider}: ${head}: ${providerMessage}`, ctx.secrets);
  const options = { status, retryAfterMs: ctx.retryAfterMs };
  if (status === 401 || status === 402 || status === 403) {
    return new ProviderError("provider_auth", message, options);
  }
  if (status === 429) {
    // An exhausted quota is a billing state, not congestion: retrying cannot help.
    const retryable = !/insufficient_quota/i.test(bodyText);
    return new ProviderError("provider_rate_limited", message, { ...options, retryable });
  }
  if (status === 408 || status === 409 || status >= 500) {
    return new ProviderError("provider_server", message, { ...options, retryable: true });
  }
  if (isContextOverflowMessage(providerMessage) || isContextOverflowMessage(bodyText)) {
    return new ContextOverflowError(message, { status });
  }
  return new ProviderError("provider_bad_request", message, options);
}

/** Reads a failed response's body (bounded) and maps it with {@link httpError}. */
export async function errorFromResponse(
  response: Response,
  ctx: ErrorContext,
): Promise<ProviderError> {
  const bodyText = await readBounded(response);
  return httpError({ status: response.status, statusText: response.statusText, bodyText }, {
    ...ctx,
    retryAfterMs: retryAfterFromHeaders(response.headers),
  });
}

/** Maps a failed `fetch` (DNS, refused, reset, TLS) to a retryable `provider_network` error. */
export function networkError(error: unknown, ctx: ErrorContext): ProviderError {
  const detail = describeChain(error);
  return new ProviderError(
    "provider_network",
    redactSecrets(`${ctx.provider}: network error: ${detail}`, ctx.secrets),
    { cause: error, retryable: true },
  );
}

/**
 * POSTs a streaming request and returns the successful response with its body unread.
 * Failures throw `ProviderError`; an abort throws the signal's reason unchanged.
 */
export async function postForStream(opts: PostOptions): Promise<Response> {
  const { signal } = opts;
  if (signal.aborted) throw signal.reason;
  const idle = new AbortController();
  const timeoutMs = opts.idleTimeoutMs;
  const timer = timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)
    ? setTimeout(() => {
      idle.abort(
        new ProviderError(
          "provider_idle_timeout",
          `${opts.provider}: no response within ${timeoutMs} ms`,
          { retryable: true },
        ),
      );
    }, timeoutMs)
    : undefined;
  // Only `signal` stays attached to the body after this returns, because the idle timer is
  // cleared first; the body's own idle timeout is the SSE reader's job.
  const fetchSignal = AbortSignal.any([signal, idle.signal]);
  const rethrowAbort = (): void => {
    if (signal.aborted) throw signal.reason;
    if (idle.signal.aborted) throw idle.signal.reason;
  };
  try {
    let response: Response;
    try {
      response = await (opts.fetch ?? fetch)(opts.url, {
        method: "POST",
        headers: opts.headers,
        body: opts.body,
        signal: fetchSignal,
      });
    } catch (error) {
      rethrowAbort();
      throw networkError(error, opts);
    }
    if (!response.ok) {
      let mapped: ProviderError;
      try {
        mapped = await errorFromResponse(response, opts);
      } catch {
        rethrowAbort();
        // The error body itself broke off; the status alone still classifies the failure.
        mapped = httpError({
          status: response.status,
          statusText: response.statusText,
          bodyText: "",
        }, {
          ...opts,
          retryAfterMs: retryAfterFromHeaders(response.headers),
        });
      }
      throw mapped;
    }
    if (!response.body) {
      throw new ProviderError("provider_stream", `${opts.provider}: response has no body`, {
        status: response.status,
      });
    }
    const type = response.headers.get("content-type") ?? "";
    if (/application\/json|text\/html/i.test(type)) {
      // A server that ignored `stream: true` or a proxy page: report its words, not a parse error.
      let text = "";
      try {
        text = await readBounded(response);
      } catch {
        rethrowAbort();
      }
      const said = extractMessage(text, opts.extractMessage) || "no message";
      throw new ProviderError(
        "provider_stream",
        redactSecrets(
          `${opts.provider}: expected an event stream but got ${type.split(";")[0]}: ${said}`,
          opts.secrets,
        ),
        { status: response.status },
      );
    }
    return response;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

// fetch reports "fetch failed" and keeps the useful part ("connection closed before message
// completed") in `cause`.
function describeChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const text = current instanceof Error ? current.message : String(current);
    if (text !== "" && !parts.includes(text)) parts.push(text);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ") || "unknown error";
}

function extractMessage(bodyText: string, extractor?: ErrorMessageExtractor): string {
  const trimmed = bodyText.trim();
  if (trimmed === "") return "";
  let message: string | undefined;
  try {
    message = (extractor ?? defaultErrorMessage)(JSON.parse(trimmed));
  } catch {
    message = undefined;
  }
  const text = (message ?? trimmed).replace(/\s+/g, " ").trim();
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ERROR_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder().decode(bytes.subarray(0, MAX_ERROR_BODY_BYTES));
}

/**
 * The error for an `error` object a server sent inside a stream (`{"message", "code"|"type"}`
 * in every supported wire format). Context-length complaints become `ContextOverflowError`;
 * congestion codes matching `retryableCodes` (or an "overloaded" message) are retryable, which
 * matters only while nothing has been shown yet.
 */
export function inStreamError(
  error: unknown,
  ctx: { provider: string; secrets?: readonly string[] },
  retryableCodes: RegExp,
): ProviderError {
  const record = typeof error === "object" && error !== null
    ? error as Record<string, unknown>
    : { message: String(error) };
  const said = typeof record.message === "string" ? record.message : JSON.stringify(error);
  const code = record.code ?? record.type;
  const detail = code !== undefined && code !== null && code !== "" ? ` (${String(code)})` : "";
  const message = redactSecrets(`${ctx.provider}: error in stream: ${said}${detail}`, ctx.secrets);
  if (isContextOverflowMessage(`${said} ${String(code ?? "")}`)) {
    return new ContextOverflowError(message);
  }
  const retryable = retryableCodes.test(String(code ?? "")) || /overloaded/i.test(said);
  return new ProviderError("provider_stream", message, { retryable });
}
