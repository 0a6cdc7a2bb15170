/**
 * `reasonix run --output-format json` (alias `--json`): one JSON object when the run ends, with
 * the result, usage, cost and every permission decision.
 *
 * @module
 */
import type {
  AgentEvent,
  PermissionDecision,
  RunStatus,
  UsageTotals,
} from "../../core/agent/events.ts";
import { cacheHitRatio } from "../../core/agent/cost.ts";
import type { CacheBreak, CacheBreakCause } from "../../core/context/cache_meter.ts";
import type { RefusalLedger, RefusedEntry } from "./refusals.ts";
import type { RunInfo } from "./run_info.ts";

/** The JSON summary printed by `--output-format json`. */
export interface RunSummary {
  status: RunStatus;
  result: string;
  model: string;
  session_id: string;
  turns: number;
  tool_calls: number;
  tokens: { prompt: number; completion: number; cache_hit: number; cache_miss: number };
  cache_hit_ratio: number;
  cost: number | null;
  currency: string | null;
  duration_ms: number;
  /** Every permission decision of the run, in order. */
  permissions: PermissionEntry[];
  /** Calls refused for want of approval or that could not start; any makes the exit code 3. */
  refused: RefusedEntry[];
  /** Request body bytes of the run and, of them, the bytes shared with the request before. */
  cache: { request_bytes: number; cached_bytes: number; prefix_share: number };
  /** Every request that did not extend the one before it, in order (docs/CONTEXT.md). */
  cache_breaks: CacheBreakEntry[];
  error?: { code: string; message: string };
  /** Why the run stopped early (`budget_exceeded`, `timeout`). */
  detail?: string;
}

/** One permission decision in the JSON summary. */
export interface PermissionEntry {
  tool: string;
  /** What the policy said before anyone answered: `allow`, `ask` or `deny`. */
  decision: PermissionDecision;
  /** Whether the call went ahead. */
  allowed: boolean;
  /** The rule that matched, or how the preset decided. */
  rule: string | null;
  preset: string;
  /** Why it was refused, and what would allow it. */
  reason: string | null;
}

/** One cache break as `--json` and `stream-json` list it. */
export interface CacheBreakEntry {
  turn: number;
  cause: CacheBreakCause;
  /** Whether a maintenance step (prune, summary, truncation) explains it. */
  planned: boolean;
  /** Bytes at the start of the request shared with the previous request. */
  offset: number;
  /** Bytes of the previous request after `offset`. */
  bytes_invalidated: number;
  /** For message causes: index of the first rewritten message. */
  message: number | null;
  /** For `tools`: the tools added, removed or changed. */
  tools: string[] | null;
  detail: string;
  /** `summary` for a summary request; null for a conversation request. */
  purpose: "summary" | null;
}

/** A `cache_break` event's break in the snake_case of the headless formats. */
export function cacheBreakEntry(b: CacheBreak): CacheBreakEntry {
  return {
    turn: b.turn,
    cause: b.cause,
    planned: b.planned,
    offset: b.offset,
    bytes_invalidated: b.bytesInvalidated,
    message: b.message ?? null,
    tools: b.tools ?? null,
    detail: b.detail,
    purpose: b.purpose ?? null,
  };
}

/** The byte measure of a run's totals. */
export function cacheBytes(u: UsageTotals): RunSummary["cache"] {
  const request = u.requestBytes ?? 0;
  const cached = u.cachedBytes ?? 0;
  return {
    request_bytes: request,
    cached_bytes: cached,
    prefix_share: request === 0 ? 0 : Number((cached / request).toFixed(4)),
  };
}

/** One `permission` event as `--json` and `stream-json` list it. */
export function permissionEntry(
  event: Extract<AgentEvent, { type: "permission" }>,
): PermissionEntry {
  return {
    tool: event.tool,
    decision: event.decision,
    allowed: event.allowed,
    rule: event.rule ?? null,
    preset: event.preset,
    reason: event.reason ?? null,
  };
}

/** Builds the summary of a finished run. */
export function summarize(opts: {
  done: Extract<AgentEvent, { type: "done" }>;
  info: Pick<RunInfo, "model" | "sessionId">;
  durationMs: number;
  permissions: PermissionEntry[];
  cacheBreaks?: CacheBreakEntry[];
  refused?: RefusedEntry[];
}): RunSummary {
  const { done, info, durationMs, permissions } = opts;
  const u: UsageTotals = done.usage;
  return {
    status: done.status,
    result: done.text,
    model: info.model,
    session_id: info.sessionId,
    turns: done.turns,
    tool_calls: done.toolCalls,
    tokens: {
      prompt: u.promptTokens,
      completion: u.completionTokens,
      cache_hit: u.cacheHitTokens,
      cache_miss: u.cacheMissTokens,
    },
    cache_hit_ratio: Number(cacheHitRatio(u).toFixed(4)),
    cost: u.cost === undefined ? null : Number(u.cost.toFixed(6)),
    currency: u.currency ?? null,
    duration_ms: Math.round(durationMs),
    permissions,
    refused: opts.refused ?? [],
    cache: cacheBytes(u),
    cache_breaks: opts.cacheBreaks ?? [],
    ...(done.error ? { error: done.error } : {}),
    ...(done.detail ? { detail: done.detail } : {}),
  };
}

/** Collects what the summary needs from the event stream and prints it at `done`. */
export class JsonSummaryWriter {
  readonly #write: (text: string) => void;
  readonly #info: RunInfo;
  readonly #now: () => number;
  #started: number;
  #permissions: PermissionEntry[] = [];
  #breaks: CacheBreakEntry[] = [];
  /** Call ids already recorded (a side channel may repeat a decision). */
  #decided = new Set<string>();

  readonly #refusals: RefusalLedger | undefined;

  constructor(
    opts: {
      write(text: string): void;
      info: RunInfo;
      now?: () => number;
      /** Where the refused calls come from (shared with the other outputs of the run). */
      refusals?: RefusalLedger;
    },
  ) {
    this.#refusals = opts.refusals;
    this.#write = opts.write;
    this.#info = opts.info;
    this.#now = opts.now ?? (() => performance.now());
    this.#started = this.#now();
  }

  /** A user turn begins: its duration is measured from here. */
  beginTurn(): void {
    this.#started = this.#now();
    this.#permissions = [];
    this.#breaks = [];
  }

  /** Records permission decisions and prints the summary at `done`. */
  event(event: AgentEvent): void {
    if (event.type === "permission") {
      if (this.#decided.has(event.callId)) return;
      this.#decided.add(event.callId);
      this.#permissions.push(permissionEntry(event));
    } else if (event.type === "cache_break") {
      this.#breaks.push(cacheBreakEntry(event.cacheBreak));
    } else if (event.type === "done") {
      const summary = summarize({
        done: event,
        info: this.#info,
        durationMs: this.#now() - this.#started,
        permissions: this.#permissions,
        cacheBreaks: this.#breaks,
        refused: this.#refusals?.turn ?? [],
      });
      this.#write(`${JSON.stringify(summary)}\n`);
    }
  }
}
