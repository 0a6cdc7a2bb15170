/**
 * The one typed event stream every front end renders: the interactive UI, `run --json` and
 * `serve`. Front ends read events and never reach into loop state.
 *
 * @module
 */
import type { ImagePart, ToolCall, Usage } from "../../providers/types.ts";
import type { ToolResult } from "../../tools/types.ts";
import type { CacheBreak } from "../context/cache_meter.ts";
import type { CompactionReport } from "../context/manager.ts";
import type { GoalRecord } from "../store/records.ts";
import type { ApprovalChoice, ApprovalRequest } from "./approval.ts";

/** The permission policy's answer for one call. */
export type PermissionDecision = "allow" | "ask" | "deny";

/**
 * What changed about a goal: it was created or its objective edited, its status changed (a
 * bound reached is `bound`, a pause of its own), the driver admitted a `round`, or it was
 * `cleared`.
 */
export type GoalChange =
  | "created"
  | "edited"
  | "paused"
  | "resumed"
  | "complete"
  | "blocked"
  | "bound"
  | "round"
  | "cleared";

/** How a run ended. `awaiting_approval`: a plan waits for a person (spec §3.5). */
export type RunStatus =
  | "completed"
  | "awaiting_approval"
  | "max_turns"
  | "cancelled"
  | "error"
  | "budget_exceeded"
  | "timeout";

/** Token and cost totals of a run or a session. */
export interface UsageTotals {
  /** Prompt tokens of every request. */
  promptTokens: number;
  /** Completion tokens of every request. */
  completionTokens: number;
  /** Prompt tokens served from the provider's cache. */
  cacheHitTokens: number;
  /** Prompt tokens the provider had to process anew. */
  cacheMissTokens: number;
  /** Cost in `currency`, when a price is known. */
  cost?: number;
  /** The currency of `cost`, e.g. `USD`. */
  currency?: string;
  /** Request body bytes the cache-break meter measured (summary requests included). */
  requestBytes?: number;
  /** Of them, bytes identical to the start of the request before: what a prefix cache can serve. */
  cachedBytes?: number;
}

/** Which agent of a coordinated run an event came from; absent: the executor. */
export interface EventOrigin {
  /** `planner` for the planner's events (its own session, usage and tool calls). */
  agent?: "planner" | "subagent";
  /** The session id of the subagent an event came from. */
  agentId?: string;
}

/**
 * Everything a run reports, in order.
 *
 * @example Print a run as it happens
 * ```ts
 * import type { AgentEvent } from "@reasonix/reasonix";
 *
 * function show(event: AgentEvent): string | undefined {
 *   switch (event.type) {
 *     case "text":
 *       return event.text;
 *     case "tool_start":
 *       return `→ ${event.call.name}`;
 *     case "tool_end":
 *       return event.result.isError ? `✗ ${event.result.content}` : "✓";
 *     case "done":
 *       return `[${event.status}] ${event.turns} turns`;
 *   }
 * }
 * console.log(show({ type: "text", text: "Hi" })); // Hi
 * ```
 */
export type AgentEvent =
  & EventOrigin
  & (
    | { type: "turn_start"; turn: number }
    | { type: "request_start"; turn: number; model: string }
    | { type: "text"; text: string }
    | { type: "reasoning"; text: string }
    | { type: "tool_start"; call: ToolCall }
    | {
      type: "tool_progress";
      callId: string;
      message: string;
      /**
       * Structured extras for front ends, e.g. `{ child, event }` for an event of a subagent the
       * call runs (`child` is its session id). Never sent to the model.
       */
      detail?: Readonly<Record<string, unknown>>;
    }
    | { type: "tool_end"; call: ToolCall; result: ToolResult; durationMs: number }
    | {
      type: "usage";
      turn: number;
      usage: Usage;
      /** Cost of this request, when priced. */
      cost?: number;
      currency?: string;
      /** Share of this request's prompt served from the provider's cache, 0..1. */
      cacheHitRatio: number;
      /** Running totals of this run, including this request. */
      totals: UsageTotals;
      /**
       * Set for a request made outside the conversation while preparing the user turn (`vision`:
       * an image description, reported with `turn` 0). It counts toward the totals and the
       * budgets, but its prompt says nothing about how full the context window is.
       */
      purpose?: "vision" | "subagent";
    }
    | {
      /** Every permission decision, so the UI and `run --json` can show why a call ran or not. */
      type: "permission";
      callId: string;
      tool: string;
      /** What the policy said before any human answered. */
      decision: PermissionDecision;
      /** Whether the call went ahead. */
      allowed: boolean;
      /** The rule that matched (e.g. `Bash(git status:*)`), or how the fallback was reached. */
      rule?: string;
      /** The active preset, e.g. `ask`. */
      preset: string;
      /** Why it was denied, or what would allow it. */
      reason?: string;
    }
    | {
      type: "approval_request";
      request: ApprovalRequest;
      /**
       * Answers this request, when the agent's approvals are answered from the stream (see
       * `StreamApprovals`). Absent when some other broker shows it. Not serialized.
       */
      respond?: (choice: ApprovalChoice) => void;
    }
    | { type: "approval_answer"; id: string; choice: ApprovalChoice }
    | {
      /** Context maintenance ran: pruning, a summary checkpoint, truncation, or a failure. */
      type: "compaction";
      report: CompactionReport;
    }
    | {
      /**
       * A request did not extend the previous request of its session: where the bytes first
       * differ, how many cached bytes that voids, and why (see `docs/CONTEXT.md`).
       */
      type: "cache_break";
      cacheBreak: CacheBreak;
    }
    | { type: "notice"; level: "info" | "warning"; message: string }
    | {
      /**
       * Where the coordinator sent this turn and why (spec §3.5): `executor` by default, or a
       * planner route. Never carries the user's text.
       */
      type: "route";
      route: "executor" | "plan_first" | "plan_approve" | "plan_only" | "goal_start";
      reason: string;
    }
    | {
      /** A plan the planner delivered, and where it stands. */
      type: "plan";
      status: "submitted" | "approved" | "rejected" | "pending" | "saved";
      plan: { id: string; title: string; text: string };
    }
    | {
      /** The session's goal changed (Goal mode, `core/goal`). */
      type: "goal";
      change: GoalChange;
      /** The goal after the change (for `cleared`, as it was). */
      goal: GoalRecord;
      /** Whether the goal driver may admit rounds in this process. Never persisted. */
      armed: boolean;
      /** What happened in words, e.g. which bound was reached and how to resume. */
      message?: string;
    }
    | {
      /** `@` references of the user's text were read and attached to the turn (labels: paths). */
      type: "attachments";
      labels: string[];
    }
    | {
      type: "done";
      status: RunStatus;
      /** Final assistant text of the run. */
      text: string;
      turns: number;
      toolCalls: number;
      usage: UsageTotals;
      /** Present when status is `error`. */
      error?: { code: string; message: string };
      /** Why a run stopped early (`budget_exceeded`, `timeout`), in words. */
      detail?: string;
      /**
       * Usage per session when a coordinator ran the planner too; `usage` is their sum.
       */
      sessions?: { planner?: UsageTotals; executor?: UsageTotals };
    }
  );

/** What a user hands a runner. */
export interface UserInput {
  /** What the user typed; `@path` references in it are resolved by the turn builder. */
  text: string;
  /** Attached images; what reaches the model is decided by the runtime (spec §3.5). */
  images?: ImagePart[];
  /**
   * Parts of `text` the user did not type (a command file's template, an MCP prompt), as
   * offsets with where the text came from: their `@` references are read only inside the
   * workspace.
   */
  supplied?: readonly { start: number; end: number; source: string }[];
  /**
   * Trusted blocks appended after the text by the host (a plan handed to the executor, the
   * planner's route); never parsed for `@` references.
   */
  blocks?: readonly string[];
  /** Trusted routing metadata from the host or a flag (`run --plan`), never from the text. */
  route?: {
    /** Run the planner first: `first` hands over at once, `approve` waits, `only` stops. */
    plan?: "first" | "approve" | "only";
    /** The turn starts a goal explicitly. */
    goalStart?: boolean;
    /** Carry out the plan that waits for approval (`run --continue --approve-plan`). */
    approvePlan?: boolean;
  };
}

/** Anything that turns user input into events: the single-model `Agent` and the `Coordinator`. */
export interface Runner {
  /** Runs one user input to its end; everything a front end shows arrives as these events. */
  run(input: UserInput, opts: { signal: AbortSignal }): AsyncIterable<AgentEvent>;
}
