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
import { addUsage, cacheHitRatio, emptyTotals } from "../../core/agent/cost.ts";
import type { CacheBreak, CacheBreakCause } from "../../core/context/cache_meter.ts";
import type { GoalRecord } from "../../core/store/records.ts";
import type { RefusalLedger, RefusedEntry } from "./refusals.ts";
import {
  type DelegationCounters,
  DelegationTally,
  emptyCounters,
} from "../../core/subagent/counters.ts";
import type { RunInfo } from "./run_info.ts";

/**
 * The JSON summary printed by `--output-format json`, with the delegation counters (spec §3.17)
 * of {@linkcode DelegationCounters}.
 */
export interface RunSummary extends DelegationCounters {
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
  /** The session's goal at the end of a Goal-mode run (`--goal`, `--goal-resume`). */
  goal?: GoalSummary;
  /** How the coordinator routed the run (spec §3.5); never the user's text. */
  route?: { route: string; reason: string };
  /** The plan the planner delivered, and where it stands. */
  plan?: { id: string; status: string; title: string };
  /** Usage per session when the planner ran: planner and executor apart (`tokens` is the sum). */
  sessions?: Record<string, SessionUsage>;
  /** The subagents' share of `tokens`, when any ran. */
  subagents?: SessionUsage;
}

/** What the `task` tool reported about its children (`meta.subagents`). */
export function subagentRuns(meta: Record<string, unknown> | undefined): { refused: string[] }[] {
  const runs = meta?.subagents;
  return Array.isArray(runs)
    ? runs.map((r) => ({ refused: Array.isArray(r?.refused) ? r.refused : [] }))
    : [];
}

/** One session's usage in a coordinated run. */
export interface SessionUsage {
  tokens: { prompt: number; completion: number; cache_hit: number; cache_miss: number };
  cache_hit_ratio: number;
  cost: number | null;
  currency: string | null;
}

/** Totals in the snake_case of the headless formats: tokens, cache-hit share, cost. */
export function usageSummary(u: UsageTotals): SessionUsage {
  return {
    tokens: {
      prompt: u.promptTokens,
      completion: u.completionTokens,
      cache_hit: u.cacheHitTokens,
      cache_miss: u.cacheMissTokens,
    },
    cache_hit_ratio: Number(cacheHitRatio(u).toFixed(4)),
    cost: u.cost === undefined ? null : Number(u.cost.toFixed(6)),
    currency: u.currency ?? null,
  };
}

/** Per-session usage of a coordinated run in the snake_case of the headless formats. */
export function sessionUsage(
  sessions: NonNullable<Extract<AgentEvent, { type: "done" }>["sessions"]>,
): Record<string, SessionUsage> {
  const out: Record<string, SessionUsage> = {};
  for (const [name, u] of Object.entries(sessions)) if (u) out[name] = usageSummary(u);
  return out;
}

/** A goal as `--json` and `stream-json` report it. */
export interface GoalSummary {
  id: string;
  objective: string;
  /** `active`, `paused`, `complete` or `blocked`. */
  status: string;
  revision: number;
  /** Rounds the goal driver admitted, over the goal's whole life. */
  rounds: number;
  /** Prompt + completion tokens of those rounds. */
  tokens: number;
  /** Real provider requests of those rounds. */
  requests: number;
  reason: string | null;
  /** Who paused it: `user`, `model`, `bound` or `error`; null unless paused. */
  paused_by: string | null;
}

/** A goal in the snake_case of the headless formats. */
export function goalSummary(goal: GoalRecord): GoalSummary {
  return {
    id: goal.id,
    objective: goal.objective,
    status: goal.status,
    revision: goal.revision,
    rounds: goal.rounds,
    tokens: goal.tokens,
    requests: goal.requests,
    reason: goal.reason ?? null,
    paused_by: goal.status === "paused" ? goal.pausedBy ?? null : null,
  };
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
    ...usageSummary(u),
    duration_ms: Math.round(durationMs),
    permissions,
    refused: opts.refused ?? [],
    cache: cacheBytes(u),
    cache_breaks: opts.cacheBreaks ?? [],
    ...(done.error ? { error: done.error } : {}),
    ...(done.detail ? { detail: done.detail } : {}),
    ...(done.sessions ? { sessions: sessionUsage(done.sessions) } : {}),
    ...emptyCounters(),
  };
}

function sessionSum(
  into: UsageTotals | undefined,
  u: Pick<UsageTotals, "promptTokens" | "completionTokens" | "cacheHitTokens" | "cacheMissTokens">,
  cost: number | undefined,
): UsageTotals {
  const out = into ?? emptyTotals();
  addUsage(out, u, cost);
  return out;
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
  #route: RunSummary["route"];
  #delegation = new DelegationTally();
  #childUsage: UsageTotals | undefined;
  #plan: RunSummary["plan"];

  readonly #refusals: RefusalLedger | undefined;
  readonly #goal: (() => GoalRecord | undefined) | undefined;

  constructor(
    opts: {
      write(text: string): void;
      info: RunInfo;
      now?: () => number;
      /** Where the refused calls come from (shared with the other outputs of the run). */
      refusals?: RefusalLedger;
      /** The goal of a Goal-mode run, read when the summary is written. */
      goal?: () => GoalRecord | undefined;
    },
  ) {
    this.#refusals = opts.refusals;
    this.#goal = opts.goal;
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
    this.#route = undefined;
    this.#plan = undefined;
    this.#delegation = new DelegationTally();
    this.#childUsage = undefined;
  }

  /** Records permission decisions and prints the summary at `done`. */
  event(event: AgentEvent): void {
    if (event.type === "permission") {
      if (this.#decided.has(event.callId)) return;
      this.#decided.add(event.callId);
      this.#permissions.push(permissionEntry(event));
    } else if (event.type === "tool_end") {
      this.#delegation.add(event.result.meta);
    } else if (event.type === "usage" && event.purpose === "subagent") {
      this.#childUsage = sessionSum(this.#childUsage, event.usage, event.cost);
    } else if (event.type === "route") {
      // A goal run routes every round; the run's route is its first (the goal's start).
      this.#route ??= { route: event.route, reason: event.reason };
    } else if (event.type === "plan") {
      this.#plan = { id: event.plan.id, status: event.status, title: event.plan.title };
    } else if (event.type === "cache_break" && event.agent === undefined) {
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
      const goal = this.#goal?.();
      if (goal) summary.goal = goalSummary(goal);
      if (this.#route) summary.route = this.#route;
      const counters = this.#delegation.counters;
      Object.assign(summary, counters);
      // The run's tool calls are the parent's and its children's (spec §3.17).
      summary.tool_calls += counters.subagent_tool_calls;
      if (this.#childUsage) {
        summary.subagents = usageSummary(this.#childUsage);
      }
      if (this.#plan) summary.plan = this.#plan;
      this.#write(`${JSON.stringify(summary)}\n`);
    }
  }
}
