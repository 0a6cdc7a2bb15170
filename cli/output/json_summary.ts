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
  /** Call ids already recorded (a side channel may repeat a decision). */
  #decided = new Set<string>();

  constructor(opts: { write(text: string): void; info: RunInfo; now?: () => number }) {
    this.#write = opts.write;
    this.#info = opts.info;
    this.#now = opts.now ?? (() => performance.now());
    this.#started = this.#now();
  }

  /** A user turn begins: its duration is measured from here. */
  beginTurn(): void {
    this.#started = this.#now();
    this.#permissions = [];
  }

  /** Records permission decisions and prints the summary at `done`. */
  event(event: AgentEvent): void {
    if (event.type === "permission") {
      if (this.#decided.has(event.callId)) return;
      this.#decided.add(event.callId);
      this.#permissions.push(permissionEntry(event));
    } else if (event.type === "done") {
      const summary = summarize({
        done: event,
        info: this.#info,
        durationMs: this.#now() - this.#started,
        permissions: this.#permissions,
      });
      this.#write(`${JSON.stringify(summary)}\n`);
    }
  }
}
