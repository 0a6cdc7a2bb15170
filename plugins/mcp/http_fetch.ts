/**
 * The fetch every HTTP request of one MCP server goes through (transport and OAuth):
 *
 * - configured headers are added only to requests for the endpoint's own origin;
 * - redirects are followed here, hop by hop, and a hop to another origin carries neither the
 *   configured headers nor credentials (`Authorization`, cookies, `Mcp-Session-Id`);
 * - the network proxy from the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`,
 *   `NO_PROXY`) is applied explicitly, so it holds for the environment Reasonix was given;
 * - the Streamable HTTP listener (GET) is observed, so the supervisor knows its phase;
 * - an event stream answering a POST request that breaks off or ends without the answer (and
 *   without an event id to resume from) gets an error answer for that request appended, so
 *   exactly that call fails at once instead of waiting for its timeout.
 *
 * @module
 */

/** What the supervisor learns from the traffic. */
export type FetchObservation =
  /** The `notifications/initialized` POST was answered; 202 means a GET stream may follow. */
  | { kind: "initialized"; status: number }
  /** The GET stream was answered. */
  | { kind: "listener"; status: number; eventStream: boolean; sessionId: boolean }
  /** An open GET stream ended or broke. */
  | { kind: "listener_end" }
  /**
   * The event stream answering a POST request ended without its answer and without an event id
   * to resume from (`broken`: it broke off rather than ended). Its request was failed at once
   * (see {@link streamFailureOf}); the session and every other request go on.
   */
  | { kind: "post_stream_unanswered"; broken: boolean }
  /** A request failed below HTTP. */
  | { kind: "network_error"; method: string };

/** Options of {@link createMcpFetch}. */
export interface McpFetchOptions {
  endpoint: URL;
  /** Static configured headers. */
  headers?: Record<string, string>;
  /** The environment to read proxy settings from. */
  env?: Record<string, string | undefined>;
  observe?(event: FetchObservation): void;
  /** Shared proxy clients; the owner closes them. */
  proxies?: ProxyClients;
}

/** A fetch with the signature the SDK expects. */
export type McpFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization", "mcp-session-id"];
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

/** Proxy `Deno.HttpClient`s by proxy URL, closed together. */
export class ProxyClients {
  readonly #clients = new Map<string, Deno.HttpClient>();

  /** The client for a proxy URL, created once. */
  get(proxy: string): Deno.HttpClient {
    let client = this.#clients.get(proxy);
    if (!client) {
      client = Deno.createHttpClient({ proxy: { url: proxy } });
      this.#clients.set(proxy, client);
    }
    return client;
  }

  close(): void {
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }
}

function envVar(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name] ?? env[name.toLowerCase()];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** Whether `NO_PROXY` exempts `url`: `*`, exact hosts, domain suffixes, optional ports. */
export function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") return true;
    let pattern = entry;
    let entryPort: string | undefined;
    const m = /^(.*):(\d+)$/.exec(entry);
    if (m && !entry.includes("]") && m[1].split(":").length === 1) {
      pattern = m[1];
      entryPort = m[2];
    }
    pattern = pattern.replace(/^\[|\]$/g, "").replace(/^\*?\./, ".");
    if (entryPort && entryPort !== port) continue;
    if (pattern.startsWith(".")) {
      if (host.endsWith(pattern) || host === pattern.slice(1)) return true;
    } else if (host === pattern || host.endsWith(`.${pattern}`)) {
      return true;
    }
  }
  return false;
}

/** The proxy URL for a request, from the environment, or undefined for a direct connection. */
export function proxyFor(url: URL, env: Record<string, string | undefined>): string | undefined {
  if (bypassesProxy(url, envVar(env, "NO_PROXY"))) return undefined;
  const scheme = url.protocol === "https:" ? "HTTPS_PROXY" : "HTTP_PROXY";
  return envVar(env, scheme) ?? envVar(env, "ALL_PROXY");
}

function toUrl(input: string | URL | Request): URL {
  return new URL(input instanceof Request ? input.url : input);
}

function isListenerGet(method: string, headers: Headers): boolean {
  return method === "GET" && (headers.get("accept") ?? "").includes("text/event-stream");
}

function isInitializedPost(method: string, body: BodyInit | null | undefined): boolean {
  if (method !== "POST" || typeof body !== "string") return false;
  if (!body.includes("notifications/initialized")) return false;
  try {
    const parsed = JSON.parse(body);
    return !Array.isArray(parsed) && parsed?.method === "notifications/initialized";
  } catch {
    return false;
  }
}

/** Passes a body through and reports when it ends (`broken`: not cleanly). */
function tapBody(
  body: ReadableStream<Uint8Array>,
  onEnd: (broken: boolean) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = (broken: boolean) => {
    if (!ended) {
      ended = true;
      onEnd(broken);
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          end(false);
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        controller.error(error);
        end(true);
      }
    },
    cancel(reason) {
      end(false);
      return reader.cancel(reason);
    },
  });
}

/** JSON-RPC error code of the answer appended for a request whose stream failed. */
export const STREAM_FAILURE_CODE = -32099;

/** How the response stream of a request failed, when its error is the appended answer. */
export type StreamFailure = "broken" | "ended";

/** Which stream failure an error reports, if it is the answer this fetch appended. */
export function streamFailureOf(error: unknown): StreamFailure | undefined {
  const e = error as { code?: unknown; data?: { reasonix_stream?: unknown } } | undefined;
  if (e?.code !== STREAM_FAILURE_CODE) return undefined;
  const kind = e.data?.reasonix_stream;
  return kind === "broken" || kind === "ended" ? kind : undefined;
}

/** The id of the one JSON-RPC request a POST body carries, if it is one. */
function requestIdOf(body: BodyInit | null | undefined): string | number | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const m = JSON.parse(body);
    if (Array.isArray(m) || typeof m?.method !== "string") return undefined;
    return typeof m.id === "string" || typeof m.id === "number" ? m.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Passes the event stream answering request `id` through, watching for its answer and for an
 * event id. When it ends or breaks off without either, an error answer for `id` is appended:
 * the SDK would otherwise wait for an answer that can no longer come until the call timeout.
 */
function guardAnswer(
  body: ReadableStream<Uint8Array>,
  id: string | number,
  onUnanswered: (broken: boolean) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  let data: string[] = [];
  let answered = false;
  let resumable = false;
  const scan = (text: string) => {
    pending += text;
    let at: number;
    while ((at = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, at).replace(/\r$/, "");
      pending = pending.slice(at + 1);
      if (line === "") {
        if (data.length && !answered) answered = answers(data.join("\n"), id);
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line[5] === " " ? 6 : 5));
      } else if (line.startsWith("id:") && line.slice(3).trim() !== "") {
        resumable = true;
      }
    }
  };
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>, broken: boolean) => {
    onUnanswered(broken);
    const message = broken
      ? "the response stream of this call broke off before its answer"
      : "the server ended the response stream of this call without an answer";
    const answer = {
      jsonrpc: "2.0",
      id,
      error: {
        code: STREAM_FAILURE_CODE,
        message,
        data: { reasonix_stream: broken ? "broken" : "ended" },
      },
    };
    // The blank lines end whatever event the stream left unfinished.
    controller.enqueue(
      new TextEncoder().encode(`\n\nevent: message\ndata: ${JSON.stringify(answer)}\n\n`),
    );
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        // An abort is the client's own doing (closing the session); a resumable stream is the
        // SDK's to resume.
        const aborted = error instanceof DOMException && error.name === "AbortError";
        if (answered || resumable || aborted) controller.error(error);
        else finish(controller, true);
        return;
      }
      if (chunk.done) {
        scan(decoder.decode() + "\n");
        if (answered || resumable) controller.close();
        else finish(controller, false);
        return;
      }
      scan(decoder.decode(chunk.value, { stream: true }));
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function answers(data: string, id: string | number): boolean {
  try {
    const m = JSON.parse(data);
    const list = Array.isArray(m) ? m : [m];
    return list.some((x) => x?.id === id && ("result" in x || "error" in x));
  } catch {
    return false;
  }
}

/** Builds the per-server fetch. */
export function createMcpFetch(opts: McpFetchOptions): McpFetch {
  const origin = opts.endpoint.origin;
  const configured = Object.entries(opts.headers ?? {});
  const configuredNames = configured.map(([k]) => k.toLowerCase());
  const env = opts.env ?? {};
  const proxies = opts.proxies;

  const once = (url: URL, init: RequestInit, baseHeaders: Headers): Promise<Response> => {
    const headers = new Headers(baseHeaders);
    // Headers the caller (the SDK) set for this URL stay; configured ones go only to the
    // endpoint's origin. Crossing origins on a redirect is handled by the caller below.
    if (url.origin === origin) {
      for (const [name, value] of configured) headers.set(name, value);
    }
    const proxy = proxies ? proxyFor(url, env) : undefined;
    const final: RequestInit & { client?: Deno.HttpClient } = {
      ...init,
      headers,
      redirect: "manual",
    };
    if (proxy) final.client = proxies!.get(proxy);
    return fetch(url, final);
  };

  return async (input, init = {}) => {
    let url = toUrl(input);
    const method = (init.method ?? "GET").toUpperCase();
    const baseHeaders = new Headers(init.headers);
    const listener = isListenerGet(method, baseHeaders);
    const initialized = isInitializedPost(method, init.body);
    let response: Response;
    try {
      response = await once(url, init, baseHeaders);
      if (init.redirect !== "manual" && init.redirect !== "error") {
        // Follow here rather than in fetch, so every hop re-decides which headers it may carry.
        let current = { ...init, method };
        let headers = baseHeaders;
        for (let hop = 0; REDIRECTS.has(response.status); hop++) {
          const location = response.headers.get("location");
          if (!location || hop >= MAX_REDIRECTS) break;
          const next = new URL(location, url);
          await response.body?.cancel();
          if (next.origin !== url.origin) {
            headers = new Headers(headers);
            for (const name of [...configuredNames, ...CREDENTIAL_HEADERS]) headers.delete(name);
          }
          if (
            response.status === 303 ||
            ((response.status === 301 || response.status === 302) && current.method === "POST")
          ) {
            current = { ...current, method: "GET", body: undefined };
            headers = new Headers(headers);
            headers.delete("content-type");
          }
          url = next;
          response = await once(url, current, headers);
        }
      } else if (init.redirect === "error" && REDIRECTS.has(response.status)) {
        await response.body?.cancel();
        throw new TypeError("redirect refused");
      }
    } catch (error) {
      if (!(error instanceof DOMException && error.name === "AbortError")) {
        opts.observe?.({ kind: "network_error", method });
      }
      throw error;
    }
    if (initialized) opts.observe?.({ kind: "initialized", status: response.status });
    const eventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    const id = method === "POST" && response.ok && eventStream && response.body
      ? requestIdOf(init.body)
      : undefined;
    if (id !== undefined) {
      const body = guardAnswer(
        response.body!,
        id,
        (broken) => opts.observe?.({ kind: "post_stream_unanswered", broken }),
      );
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    if (listener) {
      opts.observe?.({
        kind: "listener",
        status: response.status,
        eventStream,
        sessionId: baseHeaders.has("mcp-session-id"),
      });
      if (response.ok && eventStream && response.body) {
        const body = tapBody(response.body, () => opts.observe?.({ kind: "listener_end" }));
        return new Response(body, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      }
    }
    return response;
  };
}
