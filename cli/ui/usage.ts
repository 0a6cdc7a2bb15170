/**
 * Session usage as the status line and `/cost` show it, accumulated from `usage` events.
 *
 * @module
 */
import type { AgentEvent, UsageTotals } from "../../core/agent/events.ts";

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

  /** Adds a `usage` event; other events are ignored. */
  apply(event: AgentEvent): void {
    if (event.type !== "usage") return;
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
  }
}
