/**
 * Turns the agent's event stream into what the screen shows: finished items, printed once into
 * the scrollback, and a small live tail (the growing answer, the current reasoning, running
 * tools) that is the only part redrawn.
 *
 * @module
 */
import type { ApprovalChoice } from "../../core/agent/approval.ts";
import type { AgentEvent, RunStatus } from "../../core/agent/events.ts";
import type { ToolCall } from "../../providers/types.ts";
import type { ToolResult } from "../../tools/types.ts";
import { BlockSplitter } from "./live_markdown.ts";
import { compactionText } from "./compaction_text.ts";
import {
  cardIds,
  type Cards,
  CLOSED,
  foldCards,
  nextOpen,
  type OpenCards,
} from "./subagent_cards.ts";

export type { Cards, FleetItem, FleetState, LiveChild, OpenCards } from "./subagent_cards.ts";

/** Severity of a notice line. */
export type NoticeLevel = "info" | "warning" | "error";

/** Something finished, printed once. */
export type Item =
  | { id: number; kind: "banner"; title: string; lines: string[] }
  | { id: number; kind: "user"; text: string }
  | { id: number; kind: "attachments"; labels: string[] }
  | { id: number; kind: "assistant"; markdown: string }
  | { id: number; kind: "reasoning"; text: string; durationMs: number; expanded: boolean }
  | {
    id: number;
    kind: "tool";
    call: ToolCall;
    result: ToolResult;
    durationMs: number;
    /** Why the call ran, e.g. `allowed by Bash(npm test:*)`, when a rule or a person decided. */
    permission?: string;
    /** The subagents (and fleet items) the call ran, as its progress reported them. */
    cards?: Cards;
  }
  | { id: number; kind: "approval"; summary: string; choice: ApprovalChoice }
  | { id: number; kind: "notice"; level: NoticeLevel; text: string }
  | { id: number; kind: "turn_end"; status: RunStatus; detail?: string }
  | { id: number; kind: "panel"; title: string; lines: string[] };

/** Items as they are created, before they get an id. */
export type NewItem = Item extends infer T ? T extends Item ? Omit<T, "id"> : never : never;

/** A tool call still running. */
export interface LiveTool extends Cards {
  call: ToolCall;
  startedAt: number;
  progress?: string;
}

/** The part of the screen that is redrawn. */
export interface LiveState {
  /** Assistant Markdown not yet committed. */
  text: string;
  reasoning: string;
  reasoningStartedAt?: number;
  tools: readonly LiveTool[];
  /** Which subagent cards are open (Ctrl-T); absent: none. */
  open?: OpenCards;
}

const EMPTY_LIVE: LiveState = { text: "", reasoning: "", tools: [] };

function planStatusText(status: string, id: string): string {
  switch (status) {
    case "approved":
      return `Plan ${id} approved: the executor carries it out.`;
    case "rejected":
      return `Plan ${id} not approved; nothing was changed.`;
    case "pending":
      return `Plan ${id} waits for approval.`;
    default:
      return `Plan ${id} saved.`;
  }
}

/** The transcript: append-only items plus the live tail. Each change makes new arrays. */
export class Transcript {
  items: readonly Item[] = [];
  live: LiveState = EMPTY_LIVE;
  /** Whether reasoning is printed in full (Ctrl-O) or as one summary line. */
  expandReasoning = false;
  #nextId = 1;
  #lastReasoning?: { text: string; durationMs: number };
  readonly #approvals = new Map<string, string>();
  /** How each running call was allowed, shown on its card when it finishes. */
  readonly #permissions = new Map<string, string>();
  /** Finds finished blocks in `live.text` without relexing all of it on every delta; it is
   * handed `live.text` each time, so commits elsewhere need not tell it. */
  readonly #splitter = new BlockSplitter();

  /** Appends a finished item. */
  add(item: NewItem): void {
    this.items = [...this.items, { ...item, id: this.#nextId++ } as Item];
  }

  /** Forgets every item (after the screen was cleared); ids keep increasing. */
  clear(): void {
    this.items = [];
    this.live = EMPTY_LIVE;
    this.#lastReasoning = undefined;
  }

  /** Toggles full reasoning; turning it on reprints the latest reasoning in full. */
  toggleReasoning(): void {
    this.expandReasoning = !this.expandReasoning;
    if (this.expandReasoning && this.#lastReasoning) {
      this.add({ kind: "reasoning", ...this.#lastReasoning, expanded: true });
    }
  }

  /**
   * Ctrl-T: opens the next subagent card of the running calls (then all, then none); false when
   * no call runs subagents.
   */
  toggleCards(): boolean {
    const ids = this.live.tools.flatMap((t) => cardIds(t));
    if (ids.length === 0) return false;
    this.live = { ...this.live, open: nextOpen(this.live.open ?? CLOSED, ids) };
    return true;
  }

  #flushReasoning(now: number): void {
    if (!this.live.reasoning) return;
    const durationMs = now - (this.live.reasoningStartedAt ?? now);
    const text = this.live.reasoning.trim();
    this.live = { ...this.live, reasoning: "", reasoningStartedAt: undefined };
    if (!text) return;
    this.#lastReasoning = { text, durationMs };
    this.add({ kind: "reasoning", text, durationMs, expanded: this.expandReasoning });
  }

  #flushText(): void {
    const text = this.live.text;
    this.live = { ...this.live, text: "" };
    if (text.trim()) this.add({ kind: "assistant", markdown: text });
  }

  /** Commits everything still live (end of a turn). */
  flush(now: number): void {
    this.#flushReasoning(now);
    this.#flushText();
    // Cards start closed again with the next turn's calls.
    if (this.live.tools.length || this.live.open) {
      this.live = { text: this.live.text, reasoning: this.live.reasoning, tools: [] };
    }
  }

  /** Applies one agent event. `now` is a millisecond clock. */
  apply(event: AgentEvent, now: number): void {
    // The planner's prose is research: shown like reasoning, folded, never as the answer.
    if (event.agent === "planner" && event.type === "text") {
      return this.apply({ type: "reasoning", text: event.text }, now);
    }
    switch (event.type) {
      case "route":
        if (event.route !== "executor") {
          this.add({
            kind: "notice",
            level: "info",
            text: `Planner: ${event.route.replace("_", " ")} (${event.reason.replace("_", " ")})`,
          });
        }
        break;
      case "plan":
        this.#flushReasoning(now);
        this.#flushText();
        if (event.status === "submitted") {
          this.add({
            kind: "assistant",
            markdown: `**Plan** \`${event.plan.id}\`\n\n${event.plan.text}`,
          });
        } else {
          this.add({
            kind: "notice",
            level: "info",
            text: planStatusText(event.status, event.plan.id),
          });
        }
        break;
      case "reasoning":
        if (this.live.text) this.#flushText();
        this.live = {
          ...this.live,
          reasoning: this.live.reasoning + event.text,
          reasoningStartedAt: this.live.reasoningStartedAt ?? now,
        };
        break;
      case "text": {
        this.#flushReasoning(now);
        const { done, rest } = this.#splitter.push(event.text, this.live.text);
        if (done.trim()) this.add({ kind: "assistant", markdown: done });
        this.live = { ...this.live, text: rest };
        break;
      }
      case "tool_start":
        this.#flushReasoning(now);
        this.#flushText();
        this.live = {
          ...this.live,
          tools: [...this.live.tools, { call: event.call, startedAt: now }],
        };
        break;
      case "tool_progress":
        this.live = {
          ...this.live,
          tools: this.live.tools.map((t) =>
            t.call.id === event.callId
              ? { ...t, ...foldCards(t, event.detail), progress: event.message }
              : t
          ),
        };
        break;
      case "tool_end": {
        const live = this.live.tools.find((t) => t.call.id === event.call.id);
        this.live = {
          ...this.live,
          tools: this.live.tools.filter((t) => t.call.id !== event.call.id),
        };
        const cards: Cards | undefined = live?.children?.length || live?.fleet?.length
          ? {
            ...(live.children ? { children: live.children } : {}),
            ...(live.fleet ? { fleet: live.fleet } : {}),
          }
          : undefined;
        this.add({
          kind: "tool",
          call: event.call,
          result: event.result,
          durationMs: event.durationMs,
          ...(cards ? { cards } : {}),
          ...(this.#permissions.has(event.call.id)
            ? { permission: this.#permissions.get(event.call.id) }
            : {}),
        });
        this.#permissions.delete(event.call.id);
        break;
      }
      case "permission":
        // A card says which rule or mode let its call run without asking (a person's answer
        // shows as its own approval line; the read-only fallback is too common to mention).
        if (
          event.allowed && event.decision === "allow" && event.rule &&
          event.rule !== "read-only tool"
        ) {
          this.#permissions.set(
            event.callId,
            event.rule.endsWith(" mode")
              ? `allowed by the ${event.rule}`
              : `allowed by ${event.rule}`,
          );
        }
        if (!event.allowed && event.decision === "deny") {
          this.add({
            kind: "notice",
            level: "warning",
            text: `Denied ${event.tool}${event.rule ? ` by ${event.rule}` : ""}${
              event.reason ? `: ${event.reason}` : ""
            }`,
          });
        }
        break;
      case "approval_request":
        this.#approvals.set(event.request.id, event.request.summary);
        break;
      case "approval_answer": {
        const summary = this.#approvals.get(event.id) ?? "request";
        this.#approvals.delete(event.id);
        this.add({ kind: "approval", summary, choice: event.choice });
        break;
      }
      case "compaction":
        this.add({
          kind: "notice",
          level: event.report.phase === "failed" ? "warning" : "info",
          text: compactionText(event.report),
        });
        break;
      case "notice":
        this.#flushText();
        this.add({ kind: "notice", level: event.level, text: event.message });
        break;
      case "attachments":
        this.add({ kind: "attachments", labels: event.labels });
        break;
      case "done":
        this.flush(now);
        if (event.status !== "completed") {
          this.add({
            kind: "turn_end",
            status: event.status,
            ...(event.error ? { detail: event.error.message } : {}),
          });
        }
        break;
      case "turn_start":
      case "request_start":
      case "usage":
        break;
    }
  }
}
