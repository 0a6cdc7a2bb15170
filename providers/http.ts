/**
 * HTTP plumbing shared by every provider kind: the streaming POST and the mapping of HTTP and
 * network failures to `ProviderError`. Wire-neutral: each kind supplies a function that pulls
 * the human-readable message out of its parsed error body.
 *
 * @module
 */
import { linkedSignal } from "./abort.ts";
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
  /**
   * The full URL requested. Every message names it (credentials removed, see
   * {@link displayUrl}), and the fix lines refer to it.
   */
  url?: string;
  /** Where the URL came from, so a fix line names the right setting. */
  endpoint?: EndpointSource;
}

/** The setting a request URL was built from, and what the kind appended to it. */
export interface EndpointSource {
  /** The configuration key: `base_url` (the kind appends its path) or a verbatim URL key. */
  key: "base_url" | "request_url" | "chat_url";
  /** The path appended to `base_url` (`/chat/completions`); absent for a verbatim URL. */
  appended?: string;
}

/** Options for {@link postForStream}. */
export interface PostOptions extends ErrorContext {
  url: string;
  headers: Record<string, string>;
  /** The body: text, or bytes already encoded (sent as they are, never copied here). */
  body: string | Uint8Array<ArrayBuffer>;
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
 * A URL as it may appear in a message: without user name and password, and with the values of
 * query parameters that carry credentials (`key`, `api-key`, `token`, `sig`, ...) replaced.
 */
export function displayUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  u.username = "";
  u.password = "";
  for (const name of [...u.searchParams.keys()]) {
    if (/key|token|secret|auth|sig|password|credential/i.test(name)) {
      u.searchParams.set(name, "[redacted]");
    }
  }
  return u.toString().replace(/%5Bredacted%5D/g, "[redacted]");
}

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
  const message = redactSecrets(`${prefix(ctx)}${head}: ${providerMessage}`, ctx.secrets);
  const fixed = (fix: string) => redactSecrets(fix, ctx.secrets);
  const options = { status, retryAfterMs: ctx.retryAfterMs };
  if (status === 401 || status === 402 || status === 403) {
    const fix = status === 401
      ? "check the API key: the variable named by api_key_env must hold a valid key for this " +
        "endpoint"
      : status === 402
      ? "the account has no credit left: top it up with the provider, or choose another model"
      : "the key may not use this model or endpoint: check the key's permissions and the model name";
    return new ProviderError("provider_auth", message, { ...options, fix: fixed(fix) });
  }
  if (status === 429) {
    // An exhausted quota is a billing state, not congestion: retrying cannot help.
    const retryable = !/insufficient_quota/i.test(bodyText);
    const fix = retryable
      ? "the endpoint is rate limiting: wait a moment and run again, or raise the plan's limit"
      : "the account's quota is used up: check billing with the provider";
    return new ProviderError("provider_rate_limited", message, {
      ...options,
      retryable,
      fix: fixed(fix),
    });
  }
  if (status === 408 || status === 409 || status >= 500) {
    return new ProviderError("provider_server", message, {
      ...options,
      retryable: true,
      fix: fixed(
        `the server at ${hostOf(ctx)} failed, not the request: run again later, or ` +
          "check the server's status or logs",
      ),
    });
  }
  if (isContextOverflowMessage(providerMessage) || isContextOverflowMessage(bodyText)) {
    return new ContextOverflowError(message, {
      status,
      fix: "the prompt is longer than the model's window: set context_window to the model's " +
        "real window",
    });
  }
  const fix = status === 404 || status === 405
    ? notFoundFix(ctx, providerMessage)
    : status === 413
    ? "the request is too large for this endpoint: lower context_window, or leave out large " +
      "images or files"
    : "the endpoint rejected the request: check the model name and the provider's options";
  return new ProviderError("provider_bad_request", message, { ...options, fix: fixed(fix) });
}

/**
 * Which setting `url` came from: a verbatim `request_url` or `chat_url`, else `base_url` and
 * the path the kind appended to it.
 */
export function endpointSource(
  settings: { baseUrl?: string; requestUrl?: string; chatUrl?: string },
  url: string,
): EndpointSource {
  if (settings.requestUrl) return { key: "request_url" };
  if (settings.chatUrl) return { key: "chat_url" };
  const base = settings.baseUrl?.replace(/\/+$/, "");
  if (base === undefined || !url.startsWith(base) || url.length === base.length) {
    return { key: "base_url" };
  }
  return { key: "base_url", appended: url.slice(base.length) };
}

/** `p: POST http://host/v1/chat/completions: `, or `p: ` when the URL is not known. */
function prefix(ctx: { provider: string; url?: string }): string {
  return ctx.url === undefined
    ? `${ctx.provider}: `
    : `${ctx.provider}: POST ${displayUrl(ctx.url)}: `;
}

/** `scheme://host[:port]` of the request, for fix lines. */
function hostOf(ctx: { url?: string }): string {
  try {
    return ctx.url === undefined ? "the endpoint" : new URL(ctx.url).origin;
  } catch {
    return "the endpoint";
  }
}

/** A 404: the URL is wrong far more often than anything else. */
function notFoundFix(ctx: ErrorContext, said: string): string {
  const model = /model/i.test(said) ? "check the model name; " : "";
  const key = ctx.endpoint?.key ?? "base_url";
  if (key !== "base_url") {
    return `${model}check ${key}: it is requested as written, with nothing appended`;
  }
  const appended = ctx.endpoint?.appended;
  const path = appended ? appended : "/chat/completions (or /messages, /responses)";
  return `${model}check base_url; Reasonix appends ${path} to it, so base_url is the API root ` +
    `(such as https://api.example.com/v1)`;
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
    redactSecrets(`${prefix(ctx)}network error: ${detail}`, ctx.secrets),
    { cause: error, retryable: true, fix: redactSecrets(networkFix(detail, ctx), ctx.secrets) },
  );
}

/** Which failure a network error is, from the texts of Deno's and Node's error chains. */
export type NetworkFailure = "refused" | "dns" | "tls" | "timeout" | "reset" | "other";

/** Classifies the text of a failed connection. */
export function networkFailure(detail: string): NetworkFailure {
  if (/connection refused|ECONNREFUSED|os error (111|61|10061)\b/i.test(detail)) return "refused";
  if (
    /dns error|failed to lookup address|name or service not known|nodename nor servname|ENOTFOUND|EAI_AGAIN|no such host|temporary failure in name resolution/i
      .test(detail)
  ) return "dns";
  if (
    /\btls\b|ssl|certificate|handshake|corrupt message|InvalidContentType|peer sent|alert/i
      .test(detail)
  ) return "tls";
  if (/timed? ?out|ETIMEDOUT|os error (110|60|10060)\b/i.test(detail)) return "timeout";
  if (
    /connection reset|ECONNRESET|broken pipe|closed before message completed|connection closed|unexpected eof/i
      .test(detail)
  ) return "reset";
  return "other";
}

function networkFix(detail: string, ctx: ErrorContext): string {
  const key = ctx.endpoint?.key ?? "base_url";
  let host = "the endpoint";
  let origin = "the endpoint";
  try {
    if (ctx.url !== undefined) {
      const u = new URL(ctx.url);
      host = u.hostname;
      origin = u.origin;
    }
  } catch { /* keep the generic words */ }
  switch (networkFailure(detail)) {
    case "refused":
      return `is the server running at ${origin}? Start it, or correct the host and port in ${key}`;
    case "dns":
      return `the host name ${host} does not resolve: check its spelling in ${key}, and this ` +
        "machine's network and DNS";
    case "tls":
      return `the TLS (https) handshake with ${origin} failed: use http:// for a server without ` +
        "TLS, or make its certificate trusted (DENO_CERT=/path/to/ca.pem)";
    case "timeout":
      return `${origin} did not answer in time: check that it is reachable from here (firewall, ` +
        `VPN, proxy) and that the port in ${key} is right`;
    case "reset":
      return `${origin} closed the connection: check that ${key} points at an LLM API (not a web ` +
        "page or another service), then run again";
    default:
      return `check that ${origin} is reachable from this machine and that ${key} is right`;
  }
}

/**
 * POSTs a streaming request and returns the successful response with its body unread.
 * Failures throw `ProviderError`; an abort throws the signal's reason unchanged.
 */
export async function postForStream(opts: PostOptions): Promise<Response> {
  const { signal } = opts;
  if (signal.aborted) throw signal.reason;
  const timeoutMs = opts.idleTimeoutMs;
  // Followed until this returns: the body is then the SSE reader's, which has its own idle
  // timeout and cancels the body on an abort.
  const call = linkedSignal(signal, {
    timeoutMs,
    timeoutReason: () =>
      new ProviderError(
        "provider_idle_timeout",
        redactSecrets(`${prefix(opts)}no response within ${timeoutMs} ms`, opts.secrets),
        {
          retryable: true,
          fix: `${hostOf(opts)} accepted the connection but sent nothing: check that it is ` +
            "not overloaded and that the URL points at an LLM API",
        },
      ),
  });
  const rethrowAbort = (): void => {
    if (signal.aborted) throw signal.reason;
    if (call.timedOut) throw call.signal.reason;
  };
  try {
    let response: Response;
    if (awaitingHeaders === 0 && uncollectedBytes >= COLLECT_COPY_BYTES) {
      uncollectedBytes = 0;
      collectGarbage();
    }
    uncollectedBytes += byteLength(opts.body);
    awaitingHeaders++;
    try {
      response = await (opts.fetch ?? fetch)(opts.url, {
        method: "POST",
        headers: opts.headers,
        body: opts.body,
        signal: call.signal,
      });
    } catch (error) {
      awaitingHeaders--;
      rethrowAbort();
      throw networkError(error, opts);
    }
    awaitingHeaders--;
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
      throw new ProviderError(
        "provider_stream",
        redactSecrets(`${prefix(opts)}response has no body`, opts.secrets),
        {
          status: response.status,
          fix: "the server answered without a body: check that the URL points at an LLM API",
        },
      );
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
      const key = opts.endpoint?.key ?? "base_url";
      throw new ProviderError(
        "provider_stream",
        redactSecrets(
          `${prefix(opts)}expected an event stream but got ${type.split(";")[0]}: ${said}`,
          opts.secrets,
        ),
        {
          status: response.status,
          fix: /html/i.test(type)
            ? `${key} points at a web page, not an LLM API: check ${key}`
            : "the server ignored stream: true; check that it supports streaming and that " +
              `${key} is right`,
        },
      );
    }
    return response;
  } finally {
    call[Symbol.dispose]();
  }
}

/**
 * Bytes sent since the last collection from which the next request starts with one. `fetch`
 * copies every body into a fresh buffer outside the JS heap, unreferenced once the response
 * headers arrive; left alone, later garbage ages it into the old generation, where it waits
 * for a full collection, so over a long session or six concurrent children the copies add up
 * to tens of megabytes. The collection runs before the next request is sent, when the last
 * answer and its tool calls are done with and little else is young and alive. A streamed body
 * would avoid the copy, but Deno then sends `Transfer-Encoding: chunked` even beside an
 * explicit `Content-Length`, which some providers refuse.
 */
const COLLECT_COPY_BYTES = 32 * 1024;

/** Body bytes sent since the last collection. */
let uncollectedBytes = 0;

/**
 * Requests of this process still waiting for their response headers. Their body copies are
 * alive, and a scavenge would only age them toward the old generation, so collections wait
 * for a moment when none is.
 */
let awaitingHeaders = 0;

/**
 * Growth of the heap since the last full collection that makes the next request run one: a
 * quarter of what was live then, at least this. Each turn ages a few kilobytes of per-request
 * objects into the old generation, and V8 lets a small heap grow well past its live size
 * (14 → 23 MB over 1,600 turns) before collecting it. This keeps a long session's heap near
 * its live size, for one full collection (20–30 ms at 15 MB) per 4 MB of such garbage.
 */
const FULL_COLLECTION_GROWTH = 4 * 2 ** 20;

/** The smallest heap seen after a collection since the last full one this module ran. */
let heapAfterFull = 0;

type GcHint = (options: { type: "minor" | "major"; execution?: "sync" | "async" }) => void;

/**
 * Runs a scavenge, and a full collection when the heap outgrew the last one's by
 * {@link FULL_COLLECTION_GROWTH} (or a quarter), if V8's `gc` is exposed
 * (`--v8-flags=--expose-gc`, which `deno task reasonix` and the installed launcher pass); a
 * no-op otherwise, as for a library embedder.
 */
function collectGarbage(): void {
  const gc = (globalThis as { gc?: GcHint }).gc;
  if (typeof gc !== "function") return;
  gc({ type: "minor" });
  const used = Deno.memoryUsage().heapUsed;
  // Below the mark, V8 collected on its own: measure growth from there.
  if (heapAfterFull === 0 || used < heapAfterFull) heapAfterFull = used;
  else if (used > heapAfterFull + Math.max(FULL_COLLECTION_GROWTH, heapAfterFull / 4)) {
    gc({ type: "major" });
    heapAfterFull = Deno.memoryUsage().heapUsed;
  }
}

function byteLength(body: string | Uint8Array): number {
  // A string's UTF-8 length is at least its UTF-16 length: enough for a threshold.
  return typeof body === "string" ? body.length : body.byteLength;
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
  // The URL is named at the start of the message already; "fetch failed" says nothing.
  return parts.join(": ")
    .replace(/^fetch failed: /i, "")
    .replace(/error sending request for url \([^)]*\): /i, "") || "unknown error";
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
  ctx: { provider: string; secrets?: readonly string[]; url?: string },
  retryableCodes: RegExp,
): ProviderError {
  const record = typeof error === "object" && error !== null
    ? error as Record<string, unknown>
    : { message: String(error) };
  const said = typeof record.message === "string" ? record.message : JSON.stringify(error);
  const code = record.code ?? record.type;
  const detail = code !== undefined && code !== null && code !== "" ? ` (${String(code)})` : "";
  const message = redactSecrets(`${prefix(ctx)}error in stream: ${said}${detail}`, ctx.secrets);
  if (isContextOverflowMessage(`${said} ${String(code ?? "")}`)) {
    return new ContextOverflowError(message, {
      fix: "the prompt is longer than the model's window: set context_window to the model's " +
        "real window",
    });
  }
  const retryable = retryableCodes.test(String(code ?? "")) || /overloaded/i.test(said);
  return new ProviderError("provider_stream", message, {
    retryable,
    fix: retryable
      ? `the server at ${hostOf(ctx)} is busy: run again in a moment`
      : `the server at ${hostOf(ctx)} stopped the answer with an error: run again, and if it ` +
        "repeats check the model name and the provider's options",
  });
}

/** A fetch body as text (string or bytes), or null for any other kind of body. */
export function bodyText(body: BodyInit | null | undefined): string | null {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  return null;
}
