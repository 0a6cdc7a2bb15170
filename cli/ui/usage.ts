/**
 * Session usage as the status line and `/cost` show it, accumulated from `usage` events, and
 * the cache-break meter's measure from `cache_break` events and the runs' byte totals.
 *
 * @module
 */
import type { AgentEvent, UsageTotals } from "../../core/agent/events.ts";
import type { CacheBreak } from "../../core/context/cache_meter.ts";

/** What the cache-break meter reported for the session, as the status line shows it. */
export interface SessionCache {
  /** Request body bytes of the session, summary requests included. */
  requestBytes: number;
  /** Of them, bytes shared with the request before each one. */
  cachedBytes: number;
  /** Breaks no maintenance step explains. */
  unplanned: number;
  /** The latest break, planned or not. */
  last?: CacheBreak;
}

/** Running totals for the session. */
export class UsageMeter {
  totals: UsageTotals = {
    promptTokens: 0,
    completionTokens: 0,
    cacheHitTokens: 0,
    cacheMissTokens: 0,
  };
  /** Prompt tokens of the latest request: how full the context window is now. */
  lastPromptTokens = 0;
  requests = 0;
  /** Measured bytes of the runs that ended; the current run's come from its latest totals. */
  #endedBytes = { request: 0, cached: 0 };
  #runBytes = { request: 0, cached: 0 };
  #unplanned = 0;
  #lastBreak: CacheBreak | undefined;

  /** The session's cache measure so far. */
  get cache(): SessionCache {
    return {
      requestBytes: this.#endedBytes.request + this.#runBytes.request,
      cachedBytes: this.#endedBytes.cached + this.#runBytes.cached,
      unplanned: this.#unplanned,
      ...(this.#lastBreak ? { last: this.#lastBreak } : {}),
    };
  }

  /** Takes the run's measured bytes from its latest totals. */
  #bytes(totals: UsageTotals): void {
    if (totals.requestBytes === undefined) return;
    this.#runBytes = { request: totals.requestBytes, cached: totals.cachedBytes ?? 0 };
  }

  /** Adds a `usage` event; other events are ignored. */
  apply(event: AgentEvent): void {
    if (event.type === "cache_break") {
      this.#lastBreak = event.cacheBreak;
      if (!event.cacheBreak.planned) this.#unplanned++;
      return;
    }
    if (event.type === "done") {
      this.#bytes(event.usage);
      this.#endedBytes = {
        request: this.#endedBytes.request + this.#runBytes.request,
        cached: this.#endedBytes.cached + this.#runBytes.cached,
      };
      this.#runBytes = { request: 0, cached: 0 };
      return;
    }
    if (event.type !== "usage") return;
    this.#bytes(event.totals);
    const u = event.usage;
    this.requests++;
    if (!event.purpose) this.lastPromptTokens = u.promptTokens;
    this.totals = {
      ...this.totals,
      promptTokens: this.totals.promptTokens + u.promptTokens,
      completionTokens: this.totals.completionTokens + u.completionTokens,
      cacheHitTokens: this.totals.cacheHitTokens + u.cacheHitTokens,
      cacheMissTokens: this.totals.cacheMissTokens + u.cacheMissTokens,
      ...(event.cost !== undefined
        ? { cost: (this.totals.cost ?? 0) + event.cost, currency: event.currency }
        : {}),
    };
  }

  /** Starts over (a new conversation). */
  reset(): void {
    this.totals = { promptTokens: 0, completionTokens: 0, cacheHitTokens: 0, cacheMissTokens: 0 };
    this.lastPromptTokens = 0;
    this.requests = 0;
    this.#endedBytes = { request: 0, cached: 0 };
    this.#runBytes = { request: 0, cached: 0 };
    this.#unplanned = 0;
    this.#lastBreak = undefined;
  }
}
