/**
 * Who is logged in, and how fast anyone may guess. A login makes a browser session: a random
 * id (the `HttpOnly` cookie) bound to its own CSRF token, which every state-changing request
 * must echo in a header. Failed logins are counted per client and in total over a sliding
 * window; past the limit logins answer 429 until the window moves on.
 *
 * @module
 */
import { randomSecret } from "./password.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "reasonix_session";

/** The header a state-changing request carries its CSRF token in. */
export const CSRF_HEADER = "x-reasonix-csrf";

/** One logged-in browser. */
export interface BrowserSession {
  id: string;
  /** Bound to this session only; checked on every state-changing request. */
  csrf: string;
  /** `Date.now()` after which the session is gone unless used. */
  expires: number;
}

/** Logged-in browsers, bounded in number and idle time. */
export class BrowserSessions {
  readonly #sessions = new Map<string, BrowserSession>();
  readonly #idleMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(opts: { idleMs?: number; max?: number; now?: () => number } = {}) {
    this.#idleMs = opts.idleMs ?? 12 * 3600_000;
    this.#max = opts.max ?? 64;
    this.#now = opts.now ?? Date.now;
  }

  /** A new session; the oldest goes when there are too many. */
  create(): BrowserSession {
    while (this.#sessions.size >= this.#max) {
      this.#sessions.delete(this.#sessions.keys().next().value!);
    }
    const session = {
      id: randomSecret(32),
      csrf: randomSecret(32),
      expires: this.#now() + this.#idleMs,
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session with `id`, its idle time renewed. */
  get(id: string | undefined): BrowserSession | undefined {
    if (!id) return undefined;
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    if (session.expires < this.#now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    session.expires = this.#now() + this.#idleMs;
    return session;
  }

  /** Ends the session `id` (logout). */
  delete(id: string): void {
    this.#sessions.delete(id);
  }
}

/** A limit on failed logins: per client and for the whole server. */
export interface RateLimit {
  /** Failures one client may have in the window. */
  perClient: number;
  /** Failures all clients together may have in the window. */
  total: number;
  windowMs: number;
}

/** The default: 5 failures a minute per client, 30 in all. */
export const LOGIN_RATE_LIMIT: RateLimit = { perClient: 5, total: 30, windowMs: 60_000 };

/** Counts failed logins over a sliding window. */
export class LoginLimiter {
  readonly #failures = new Map<string, number[]>();
  #all: number[] = [];
  readonly #limit: RateLimit;
  readonly #now: () => number;

  constructor(limit: RateLimit = LOGIN_RATE_LIMIT, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  /** Seconds `client` must wait before trying again, or 0 when it may try now. */
  retryAfter(client: string): number {
    const now = this.#now();
    const start = now - this.#limit.windowMs;
    this.#all = this.#all.filter((t) => t > start);
    const mine = (this.#failures.get(client) ?? []).filter((t) => t > start);
    if (mine.length) this.#failures.set(client, mine);
    else this.#failures.delete(client);
    const wait = (times: number[], max: number) =>
      times.length >= max ? times[times.length - max] + this.#limit.windowMs - now : 0;
    const ms = Math.max(wait(mine, this.#limit.perClient), wait(this.#all, this.#limit.total));
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  /** Records a failed login of `client`. */
  fail(client: string): void {
    const now = this.#now();
    this.#all.push(now);
    const mine = this.#failures.get(client) ?? [];
    mine.push(now);
    this.#failures.set(client, mine);
    // Bounded memory under a flood from many addresses.
    if (this.#failures.size > 10_000) this.#failures.delete(this.#failures.keys().next().value!);
  }
}

/** The value of cookie `name` in a `Cookie` header. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The `Set-Cookie` value of a session (empty `id`: the cookie is removed). */
export function sessionCookie(id: string, opts: { secure: boolean }): string {
  const parts = [`${SESSION_COOKIE}=${id}`, "Path=/", "HttpOnly", "SameSite=Strict"];
  if (opts.secure) parts.push("Secure");
  if (!id) parts.push("Max-Age=0");
  return parts.join("; ");
}
