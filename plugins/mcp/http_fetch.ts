/**
 * The fetch every HTTP request of one MCP server goes through (transport and OAuth):
 *
 * - configured headers are added only to requests for the endpoint's own origin;
 * - redirects are followed here, hop by hop, and a hop to another origin carries neither the
 *   configured headers nor credentials (`Authorization`, cookies, `Mcp-Session-Id`);
 * - the network proxy from the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`,
 *   `NO_PROXY`) is applied explicitly, so it holds for the environment Reasonix was given;
 * - the Streamable HTTP listener (GET) is observed, so the supervisor knows its phase.
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
   * The event stream answering a POST broke off (not a clean end). `resumable`: the server had
   * sent an event id, so the SDK resumes it with `Last-Event-ID`.
   */
  | { kind: "post_stream_broken"; resumable: boolean }
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
  onChunk?: (chunk: Uint8Array) => void,
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
          onChunk?.(value);
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
    if (method === "POST" && response.ok && eventStream && response.body && opts.observe) {
      // A request's stream that breaks off before its answer leaves the request pending;
      // unless the server made it resumable, the supervisor treats that as a lost link.
      let resumable = false;
      const decoder = new TextDecoder();
      const body = tapBody(
        response.body,
        (broken) => {
          if (broken) opts.observe?.({ kind: "post_stream_broken", resumable });
        },
        (chunk) => {
          if (!resumable && /(^|\n)id:/.test(decoder.decode(chunk, { stream: true }))) {
            resumable = true;
          }
        },
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
