/**
 * What a request says about where it comes from and where it was sent, and whether to believe
 * it. `Host` must name this server (DNS rebinding sends a page's requests under the attacker's
 * name); `Origin` of a state-changing request must be this server's own or a configured one;
 * `X-Forwarded-*` count only `behind_proxy`. Every response gets the same strict headers.
 *
 * @module
 */
import { isLoopback, type ServeSettings } from "./settings.ts";

/** A request as the guards see it. */
export interface RequestView {
  /** `name[:port]` the browser addressed (the proxy's forwarded one `behind_proxy`). */
  host: string;
  /** `scheme://host` of this server as the browser sees it. */
  origin: string;
  /** Who is asking, for the login limit: the peer address, or the proxy's client `behind_proxy`. */
  client: string;
  /** Whether the browser reached us over TLS (cookies get `Secure`). */
  secure: boolean;
}

/** Reads a request; `peer` is the socket's remote address. */
export function viewRequest(req: Request, peer: string, s: ServeSettings): RequestView {
  const h = req.headers;
  const first = (name: string) => h.get(name)?.split(",")[0].trim() || undefined;
  const forwardedHost = s.behindProxy ? first("x-forwarded-host") : undefined;
  const host = (forwardedHost ?? h.get("host") ?? "").toLowerCase();
  const proto = s.tls ? "https" : s.behindProxy ? (first("x-forwarded-proto") ?? "http") : "http";
  // The proxy appends the address it saw; earlier entries are whatever the client sent.
  const client = s.behindProxy
    ? (h.get("x-forwarded-for")?.split(",").at(-1)?.trim() || peer)
    : peer;
  return {
    host,
    origin: `${proto === "https" ? "https" : "http"}://${host}`,
    client,
    secure: s.tls || s.behindProxy,
  };
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** Splits `name[:port]` (with `[v6]` brackets). */
function splitHost(host: string): { name: string; port: string } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host);
  return m ? { name: m[1], port: m[2] ?? "" } : undefined;
}

/**
 * Whether `host` names this server: `localhost` or an IP address (a rebinding attack needs a
 * name it controls) on the port we listen on, or a host of `allowed_origins`.
 */
export function hostAllowed(host: string, s: ServeSettings, port: number): boolean {
  if (!host) return false;
  for (const origin of s.allowedOrigins) {
    const url = new URL(origin);
    if (host === url.host) return true;
  }
  const parts = splitHost(host);
  if (!parts) return false;
  const literal = IPV4.test(parts.name) || parts.name.startsWith("[");
  if (!literal && parts.name !== "localhost") return false;
  // A loopback listener is reachable by loopback names only.
  if (isLoopback(s.host) && !isLoopback(parts.name)) return false;
  // Behind a proxy the port the browser used is the proxy's, not ours.
  if (s.behindProxy) return true;
  const defaultPort = s.tls ? "443" : "80";
  return (parts.port || defaultPort) === String(port);
}

/**
 * Whether a state-changing request may come from `origin` (its `Origin` header): this
 * server's own origin or a configured one. A missing or `null` origin is refused.
 */
export function originAllowed(origin: string | null, view: RequestView, s: ServeSettings): boolean {
  if (!origin || origin === "null") return false;
  const o = origin.toLowerCase();
  return o === view.origin || s.allowedOrigins.includes(o);
}

/**
 * The page may run only its own files: no inline script or style, no other origin, no
 * framing, no plugins; forms and connections go only back to this server.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** Headers every response carries. */
export function securityHeaders(): Record<string, string> {
  return {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
  };
}
