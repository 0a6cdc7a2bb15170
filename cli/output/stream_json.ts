/**
 * `reasonix run --output-format stream-json`: the agent's events as line-delimited JSON in the
 * message shapes of Claude Code's headless mode (`claude -p --output-format stream-json`), so a
 * program written against those shapes can drive Reasonix unchanged.
 *
 * - one `system`/`init` line first (session, model, tools, working directory, permission mode);
 * - per model request, `assistant` lines sharing one message id, one content block each
 *   (`thinking`, `text`, then a `tool_use` block per call, as each call starts);
 * - a `user` line with the `tool_result` block of each call as it ends;
 * - a `result` line when a user turn ends.
 *
 * What Claude Code has no shape for (permission decisions, compaction, notices, cache breaks and
 * misses, tool progress) goes out as `system` lines whose `subtype` starts with `reasonix_`. Wrappers
 * already pass unknown `system` subtypes through, since Claude Code adds new ones routinely; an
 * unknown top-level `type` is a parse error in some of them.
 *
 * @module
 */
import type { AgentEvent, RunStatus, UsageTotals } from "../../core/agent/events.ts";
import { cacheHitRatio } from "../../core/agent/cost.ts";
import type { GoalRecord } from "../../core/store/records.ts";
import type { Usage } from "../../providers/types.ts";
import {
  type CacheBreakEntry,
  cacheBreakEntry,
  cacheBytes,
  goalSummary,
  permissionEntry,
  sessionUsage,
} from "./json_summary.ts";
import type { RefusalLedger } from "./refusals.ts";
import { DelegationTally } from "../../core/subagent/counters.ts";
import type { RunInfo } from "./run_info.ts";

/** Claude Code's token counts; `input_tokens` excludes the tokens read from the cache. */
export interface ClaudeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  /**
   * Always 0: the providers Reasonix speaks to either write their cache implicitly (DeepSeek,
   * OpenAI) or are normalized with cache writes counted as uncached input (Anthropic).
   */
  cache_creation_input_tokens: number;
}

/** `result` subtypes, as Claude Code names them. */
export type ResultSubtype =
  | "success"
  | "error_max_turns"
  | "error_max_budget_usd"
  | "error_during_execution";

/** A stdin line that is not a user turn. */
export interface InputLineError {
  /** 1-based line number on stdin. */
  line: number;
  message: string;
}

/** Where the lines go and how ids and time are made (replaceable in tests). */
export interface StreamJsonOptions {
  /** Receives each line, newline included. */
  write(line: string): void;
  info: RunInfo;
  /** Milliseconds, monotonic. Default `performance.now`. */
  now?: () => number;
  /** A fresh unique id. Default `crypto.randomUUID`. */
  uuid?: () => string;
  /** Where the refused calls come from (shared with the other outputs of the run). */
  refusals?: RefusalLedger;
  /** The goal of a Goal-mode run, read for each `result` line. */
  goal?: () => GoalRecord | undefined;
}

/** Smallest previous prompt, in tokens, whose prefix a provider is expected to cache. */
const MIN_CACHEABLE_PROMPT = 1024;
/** Share of the previous prompt a request must read from the cache not to count as a miss. */
const CACHE_BREAK_RATIO = 0.9;

/** A subagent's event carried by a `tool_progress`, as a `reasonix_child` line's fields. */
function childLine(detail: Readonly<Record<string, unknown>> | undefined) {
  const event = detail?.event as AgentEvent | undefined;
  if (!event || typeof detail?.child !== "string") return undefined;
  const base = {
    child_id: detail.child,
    ...(typeof detail.item === "string" ? { item: detail.item } : {}),
  };
  switch (event.type) {
    case "tool_start":
      return {
        ...base,
        event: "tool_use",
        id: event.call.id,
        name: event.call.name,
        input: toolInput(event.call.arguments),
      };
    case "tool_end":
      return {
        ...base,
        event: "tool_result",
        id: event.call.id,
        name: event.call.name,
        is_error: event.result.isError === true,
      };
    case "usage":
      return { ...base, event: "usage", usage: claudeUsage(event.usage) };
    default:
      return undefined;
  }
}

/** A fleet item's state change carried by a `tool_progress`, as a `reasonix_fleet_item` line. */
function fleetItemLine(detail: Readonly<Record<string, unknown>> | undefined) {
  const f = detail?.fleet as Record<string, unknown> | undefined;
  if (!f || typeof f.item !== "string" || typeof f.state !== "string") return undefined;
  return {
    item: f.item,
    state: f.state,
    ...(typeof f.status === "string" ? { status: f.status } : {}),
    ...(typeof f.child === "string" ? { child_id: f.child } : {}),
    ...(f.usage ? { usage: claudeUsage(f.usage as Usage) } : {}),
    ...(typeof f.reason === "string" ? { reason: f.reason } : {}),
  };
}

/** Maps a Reasonix run status to Claude Code's `result` subtype. */
export function resultSubtype(status: RunStatus): ResultSubtype {
  switch (status) {
    case "completed":
    case "awaiting_approval":
      return "success";
    case "max_turns":
      return "error_max_turns";
    case "budget_exceeded":
      return "error_max_budget_usd";
    default:
      return "error_during_execution";
  }
}

/** Converts Reasonix usage (all prompt tokens, cache hits among them) to Claude Code's counts. */
export function claudeUsage(
  u: Pick<Usage, "promptTokens" | "completionTokens" | "cacheHitTokens">,
): ClaudeUsage {
  return {
    input_tokens: Math.max(0, u.promptTokens - u.cacheHitTokens),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: u.cacheHitTokens,
    output_tokens: u.completionTokens,
  };
}

/** Whether a price's currency is US dollars (`total_cost_usd` is only ever dollars). */
function isUsd(currency: string | undefined): boolean {
  return currency !== undefined && /^(usd|\$|us\$)$/i.test(currency.trim());
}

/** Parses tool-call argument text into the object a `tool_use` block carries. */
function toolInput(args: string): Record<string, unknown> {
  try {
    const value = JSON.parse(args || "{}");
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    // The model's arguments were not JSON; the tool result says so.
    return {};
  }
}

/** Writes agent events as Claude Code-compatible stream-json lines. */
export class StreamJsonWriter {
  readonly #opts: StreamJsonOptions;
  readonly #now: () => number;
  readonly #uuid: () => string;
  /** Message id of the current model request. */
  #messageId = "";
  #model = "";
  #text = "";
  #reasoning = "";
  #requestUsage: ClaudeUsage | undefined;
  /** When the current request started, while it streams. */
  #requestStarted: number | undefined;
  #apiMs = 0;
  #turnStarted = 0;
  /** Arguments of the calls of this turn, for `permission_denials`. */
  #inputs = new Map<string, Record<string, unknown>>();
  #denials: { tool_name: string; tool_use_id: string; tool_input: Record<string, unknown> }[] = [];
  /** Permission decisions already written, by call id (a side channel may repeat them). */
  #decided = new Set<string>();
  /** Prompt tokens of the previous conversation request, for cache-break detection. */
  #lastPrompt = 0;
  /** Compaction rewrote the history since the previous request: a lower hit is expected. */
  #rewritten = false;
  /** The meter reported a break for the current request: a lower hit is explained. */
  #broken = false;
  /** The cache breaks of this user turn, for the `result` line. */
  #breaks: CacheBreakEntry[] = [];
  /** Delegation counters of this user turn, from the tools' host records. */
  #delegation = new DelegationTally();

  constructor(opts: StreamJsonOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? (() => performance.now());
    this.#uuid = opts.uuid ?? (() => crypto.randomUUID());
    this.#turnStarted = this.#now();
  }

  #line(record: Record<string, unknown>): void {
    this.#opts.write(
      `${
        JSON.stringify({ ...record, session_id: this.#opts.info.sessionId, uuid: this.#uuid() })
      }\n`,
    );
  }

  #reasonix(subtype: string, fields: Record<string, unknown>): void {
    this.#line({ type: "system", subtype: `reasonix_${subtype}`, ...fields });
  }

  #assistant(block: Record<string, unknown>): void {
    if (!this.#messageId) this.#messageId = `msg_${this.#uuid().replaceAll("-", "")}`;
    this.#line({
      type: "assistant",
      message: {
        id: this.#messageId,
        type: "message",
        role: "assistant",
        model: this.#model,
        content: [block],
        stop_reason: null,
        stop_sequence: null,
        usage: this.#requestUsage ?? claudeUsage({
          promptTokens: 0,
          completionTokens: 0,
          cacheHitTokens: 0,
        }),
      },
      parent_tool_use_id: null,
    });
  }

  /** Ends the streaming of the current request: its reasoning and text become blocks. */
  #flush(): void {
    if (this.#requestStarted !== undefined) {
      this.#apiMs += this.#now() - this.#requestStarted;
      this.#requestStarted = undefined;
    }
    if (this.#reasoning) {
      this.#assistant({ type: "thinking", thinking: this.#reasoning, signature: "" });
    }
    if (this.#text) this.#assistant({ type: "text", text: this.#text });
    this.#reasoning = "";
    this.#text = "";
  }

  /** The `system`/`init` line. Call once, before the first turn. */
  start(): void {
    const info = this.#opts.info;
    this.#line({
      type: "system",
      subtype: "init",
      cwd: info.cwd,
      tools: [...info.tools],
      mcp_servers: (info.mcpServers ?? []).map((s) => ({ name: s.name, status: s.status })),
      model: info.model,
      permissionMode: info.permissionMode,
      apiKeySource: "none",
      ...(info.version ? { reasonix_version: info.version } : {}),
    });
  }

  /** A user turn begins: its `result` line measures from here. */
  beginTurn(): void {
    this.#turnStarted = this.#now();
    this.#apiMs = 0;
    this.#denials = [];
    this.#breaks = [];
    this.#inputs.clear();
    this.#delegation = new DelegationTally();
  }

  /** Writes the lines an event causes (none for most streaming deltas). */
  event(event: AgentEvent): void {
    if (event.agent === "planner" && this.#planner(event)) return;
    switch (event.type) {
      case "turn_start":
        this.#flush();
        break;
      case "request_start":
        this.#flush();
        this.#messageId = "";
        this.#model = event.model;
        this.#requestUsage = undefined;
        this.#requestStarted = this.#now();
        break;
      case "text":
        this.#text += event.text;
        break;
      case "reasoning":
        this.#reasoning += event.text;
        break;
      case "usage":
        if (event.purpose === undefined) {
          this.#requestUsage = claudeUsage(event.usage);
          this.#checkCache(event.turn, event.usage);
        }
        break;
      case "tool_start": {
        this.#flush();
        const input = toolInput(event.call.arguments);
        this.#inputs.set(event.call.id, input);
        this.#assistant({ type: "tool_use", id: event.call.id, name: event.call.name, input });
        break;
      }
      case "tool_progress": {
        this.#reasonix("tool_progress", { tool_use_id: event.callId, message: event.message });
        const child = childLine(event.detail);
        if (child) this.#reasonix("child", { tool_use_id: event.callId, ...child });
        const item = fleetItemLine(event.detail);
        if (item) this.#reasonix("fleet_item", { tool_use_id: event.callId, ...item });
        break;
      }
      case "tool_end":
        this.#delegation.add(event.result.meta);
        this.#line({
          type: "user",
          message: {
            role: "user",
            content: [{
              type: "tool_result",
              tool_use_id: event.call.id,
              content: event.result.content,
              is_error: event.result.isError === true,
            }],
          },
          parent_tool_use_id: null,
        });
        break;
      case "permission":
        if (this.#decided.has(event.callId)) break;
        this.#decided.add(event.callId);
        if (!event.allowed) {
          this.#denials.push({
            tool_name: event.tool,
            tool_use_id: event.callId,
            tool_input: this.#inputs.get(event.callId) ?? {},
          });
        }
        this.#reasonix("permission", { tool_use_id: event.callId, ...permissionEntry(event) });
        break;
      case "approval_request": {
        const r = event.request;
        this.#reasonix("approval_request", {
          id: r.id,
          kind: r.kind,
          tool: r.tool,
          summary: r.summary,
          detail: r.detail ?? null,
          session_scope: r.sessionScope ?? null,
        });
        break;
      }
      case "approval_answer":
        this.#reasonix("approval_answer", { id: event.id, choice: event.choice });
        break;
      case "compaction": {
        const r = event.report;
        this.#rewritten = true;
        this.#reasonix("compaction", {
          phase: r.phase,
          cause: r.cause,
          generation: r.generation,
          pre_tokens: r.beforeTokens,
          post_tokens: r.afterTokens,
          reason: r.reason ?? null,
          learned_window: r.learnedWindow ?? null,
        });
        break;
      }
      case "cache_break": {
        const entry = cacheBreakEntry(event.cacheBreak);
        // A summary request's break says nothing about the next conversation request's hits.
        if (entry.purpose === null) this.#broken = true;
        this.#breaks.push(entry);
        this.#reasonix("cache_break", { ...entry });
        break;
      }
      case "notice":
        this.#reasonix("notice", { level: event.level, message: event.message });
        break;
      case "goal":
        this.#reasonix("goal", {
          change: event.change,
          armed: event.armed,
          message: event.message ?? null,
          goal: goalSummary(event.goal),
        });
        break;
      case "route":
        this.#reasonix("route", { route: event.route, reason: event.reason });
        break;
      case "plan":
        this.#reasonix("plan", {
          id: event.plan.id,
          status: event.status,
          title: event.plan.title,
          plan: event.plan.text,
        });
        break;
      case "done":
        this.#flush();
        this.#result(event);
        break;
      default:
        // Events added later are not part of this format until they are documented.
        break;
    }
  }

  /**
   * The planner's own work, in Reasonix lines of its own so a wrapper reading the executor's
   * conversation is not misled (and its cache checks see one session). Returns false for
   * events shown like the executor's (permissions, approvals, notices).
   */
  #planner(event: AgentEvent): boolean {
    switch (event.type) {
      case "tool_start":
        this.#reasonix("planner_tool_use", {
          id: event.call.id,
          name: event.call.name,
          input: toolInput(event.call.arguments),
        });
        return true;
      case "tool_end":
        this.#reasonix("planner_tool_result", {
          tool_use_id: event.call.id,
          is_error: event.result.isError === true,
        });
        return true;
      case "permission":
      case "approval_request":
      case "approval_answer":
      case "notice":
      case "cache_break":
        return false;
      default:
        return true;
    }
  }

  /**
   * A request that read much less from the provider's cache than the previous prompt it
   * extends, although the meter saw the prefix intact: the provider evicted or never wrote it.
   */
  #checkCache(turn: number, usage: Usage): void {
    const expected = this.#lastPrompt;
    if (
      expected >= MIN_CACHEABLE_PROMPT && !this.#rewritten && !this.#broken &&
      usage.cacheHitTokens < expected * CACHE_BREAK_RATIO
    ) {
      this.#reasonix("cache_miss", {
        turn,
        expected_cached_tokens: expected,
        cache_read_input_tokens: usage.cacheHitTokens,
        prompt_tokens: usage.promptTokens,
      });
    }
    this.#lastPrompt = usage.promptTokens;
    this.#rewritten = false;
    this.#broken = false;
  }

  #result(done: Extract<AgentEvent, { type: "done" }>): void {
    const u: UsageTotals = done.usage;
    const goal = this.#opts.goal?.();
    const error = done.status !== "completed" && done.status !== "awaiting_approval";
    this.#line({
      type: "result",
      subtype: resultSubtype(done.status),
      is_error: error,
      duration_ms: Math.round(this.#now() - this.#turnStarted),
      duration_api_ms: Math.round(this.#apiMs),
      num_turns: done.turns,
      result: done.error && !done.text ? done.error.message : done.text,
      ...(u.cost !== undefined && isUsd(u.currency)
        ? { total_cost_usd: Number(u.cost.toFixed(6)) }
        : {}),
      usage: claudeUsage(u),
      permission_denials: this.#denials,
      ...(error
        ? {
          errors: [
            done.error?.message ?? done.detail ?? `the run ended with status ${done.status}`,
          ],
        }
        : {}),
      reasonix: {
        status: done.status,
        tool_calls: done.toolCalls + this.#delegation.counters.subagent_tool_calls,
        ...this.#delegation.counters,
        cache_hit_ratio: Number(cacheHitRatio(u).toFixed(4)),
        cost: u.cost === undefined ? null : Number(u.cost.toFixed(6)),
        currency: u.currency ?? null,
        cache: cacheBytes(u),
        cache_breaks: this.#breaks,
        refused: this.#opts.refusals?.turn ?? [],
        ...(done.error ? { error: done.error } : {}),
        ...(done.detail ? { detail: done.detail } : {}),
        ...(goal ? { goal: goalSummary(goal) } : {}),
        ...(done.sessions ? { sessions: sessionUsage(done.sessions) } : {}),
      },
    });
  }

  /**
   * A stdin line that is not a user turn: a `result` line with `is_error`, answering the line
   * the driving program sent, so a program waiting for that answer gets one.
   */
  inputError(error: InputLineError): void {
    this.#line({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      duration_ms: 0,
      duration_api_ms: 0,
      num_turns: 0,
      result: `stdin line ${error.line}: ${error.message}`,
      usage: claudeUsage({ promptTokens: 0, completionTokens: 0, cacheHitTokens: 0 }),
      permission_denials: [],
      errors: [`stdin line ${error.line}: ${error.message}`],
      reasonix: { status: "input_error", line: error.line },
    });
  }
}
