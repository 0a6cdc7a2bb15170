/**
 * What crosses the wire to the page: the agent's events as JSON (functions dropped), the
 * server's own events, and a stored conversation as display items. Nothing here carries
 * configuration: the page sees the conversation, model names and the permission mode only.
 *
 * @module
 */
import type { AgentEvent } from "../../core/agent/events.ts";
import type { ApprovalChoice } from "../../core/agent/approval.ts";
import { userText } from "../../core/store/sessions.ts";
import type { Message } from "../../providers/types.ts";
import type { ApprovalPreview } from "../ui/approval_preview.ts";

/** Facts the status line shows. */
export interface WireInfo {
  sessionId: string;
  /** `provider/model`. */
  model: string;
  contextWindow: number;
  mode?: string;
  effort?: string;
  planMode: boolean;
  workspaceRoot: string;
}

/** Events of the server itself, beside the agent's. */
export type ServerEvent =
  /** A user turn began (so every tab shows what was sent). */
  | { type: "user"; text: string }
  | { type: "approval_settled"; id: string; choice: ApprovalChoice }
  /** The server moved on to another session: the page reloads its state. */
  | { type: "session_switched"; sessionId: string }
  /** Model, mode or effort changed. */
  | { type: "info"; info: WireInfo }
  /** The turn is over and nothing runs (sent after `done`, or after a failure). */
  | { type: "idle" };

/** An agent event as sent: `respond` dropped, an approval with its preview. */
export type WireEvent =
  | Exclude<AgentEvent, { type: "approval_request" }>
  | (Omit<Extract<AgentEvent, { type: "approval_request" }>, "respond"> & {
    preview?: ApprovalPreview;
  })
  | ServerEvent;

/** How much of a tool result a stored conversation shows. */
const RESULT_CHARS = 4000;

/** The event as JSON-safe data. */
export function wireEvent(event: AgentEvent, preview?: ApprovalPreview): WireEvent {
  if (event.type === "approval_request") {
    const { respond: _respond, ...rest } = event;
    return preview ? { ...rest, preview } : rest;
  }
  if (event.type === "tool_end") {
    // The local full text stays on the server; the page gets the bounded result.
    const { raw: _raw, ...result } = event.result;
    return { ...event, result: { ...result, content: clip(result.content) } };
  }
  return event;
}

function clip(text: string): string {
  return text.length > RESULT_CHARS
    ? `${text.slice(0, RESULT_CHARS)}\n… (${text.length - RESULT_CHARS} more characters)`
    : text;
}

/** One entry of a stored conversation. */
export type DisplayItem =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string; reasoning?: string }
  | { kind: "tool"; callId: string; name: string; arguments: string }
  | { kind: "tool_result"; callId: string; content: string; isError?: boolean };

/** The conversation `messages` as the page shows it. */
export function displayItems(messages: readonly Message[]): DisplayItem[] {
  const items: DisplayItem[] = [];
  for (const m of messages) {
    if (m.role === "user") items.push({ kind: "user", text: userText(m.content) });
    else if (m.role === "assistant") {
      if (m.content || m.reasoning) {
        items.push({
          kind: "assistant",
          text: m.content,
          ...(m.reasoning ? { reasoning: m.reasoning } : {}),
        });
      }
      for (const c of m.toolCalls ?? []) {
        items.push({ kind: "tool", callId: c.id, name: c.name, arguments: c.arguments });
      }
    } else if (m.role === "tool") {
      const content = clip(m.content);
      items.push({
        kind: "tool_result",
        callId: m.toolCallId ?? "",
        content,
        ...(m.isError ? { isError: true } : {}),
      });
    }
  }
  return items;
}
