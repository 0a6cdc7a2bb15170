/**
 * How Reasonix's events and messages look to an ACP client: tool kinds, titles and locations,
 * plan entries, stop reasons, and a stored conversation replayed as `session/update`s. Pure
 * functions over plain data, so every mapping is tested without a connection.
 *
 * @module
 */
import type {
  PlanEntry,
  SessionUpdate,
  StopReason,
  ToolCallContent,
  ToolCallLocation,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type { RunStatus } from "../../core/agent/events.ts";
import { userText } from "../../core/store/user_text.ts";
import type { Message, ToolCall } from "../../providers/types.ts";
import { resolveToolPath } from "../../tools/paths.ts";

/** The ACP kind of a Reasonix tool, so editors pick the icon and the follow-along behaviour. */
export function toolKind(name: string): ToolKind {
  switch (name) {
    case "read_file":
      return "read";
    case "ls":
    case "glob":
    case "grep":
    case "history":
      return "search";
    case "write_file":
    case "edit_file":
    case "multi_edit":
      return "edit";
    case "move_file":
      return "move";
    case "bash":
      return "execute";
    case "task":
    case "submit_plan":
      return "think";
    default:
      return "other";
  }
}

/** The ACP kind of a call: {@linkcode toolKind}, and for a capability what it does. */
export function callKind(call: ToolCall): ToolKind {
  if (call.name !== "use_capability") return toolKind(call.name);
  return callArguments(call).capability === "exit_plan_mode" ? "switch_mode" : "other";
}

/** A call's arguments as an object; `{}` when they are not a JSON object. */
export function callArguments(call: ToolCall): Record<string, unknown> {
  try {
    const value = JSON.parse(call.arguments || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function oneLine(text: string, max = 80): string {
  const line = text.split("\n")[0].trim();
  return line.length > max || text.includes("\n") ? `${line.slice(0, max - 1)}…` : line;
}

/** One line naming what a call does, e.g. `Edit src/a.ts` or `` `npm test` ``. */
export function toolTitle(call: ToolCall): string {
  const a = callArguments(call);
  const str = (key: string) => typeof a[key] === "string" ? a[key] as string : undefined;
  const path = str("path");
  switch (call.name) {
    case "read_file":
      return path ? `Read ${path}` : "Read a file";
    case "write_file":
      return path ? `Write ${path}` : "Write a file";
    case "edit_file":
    case "multi_edit":
      return path ? `Edit ${path}` : "Edit a file";
    case "move_file":
      return str("source") && str("destination")
        ? `Move ${str("source")} → ${str("destination")}`
        : "Move a file";
    case "ls":
      return `List ${path ?? "."}`;
    case "glob":
      return str("pattern") ? `Find ${str("pattern")}` : "Find files";
    case "grep":
      return str("pattern") ? `Search ${oneLine(str("pattern")!)}` : "Search";
    case "bash":
      return str("command") ? `\`${oneLine(str("command")!)}\`` : "Run a command";
    case "use_capability":
      return str("capability") === "exit_plan_mode"
        ? "Present the plan"
        : str("capability") ?? call.name;
    default:
      return call.name;
  }
}

/** The files a call reads or changes, absolute, for the editor to follow. */
export function toolLocations(call: ToolCall, root: string): ToolCallLocation[] {
  const a = callArguments(call);
  const at = (key: string) =>
    typeof a[key] === "string" && a[key] !== "" ? resolveToolPath(root, a[key] as string) : "";
  switch (call.name) {
    case "read_file": {
      const path = at("path");
      if (!path) return [];
      const offset = typeof a.offset === "number" && a.offset > 0 ? a.offset : undefined;
      return [{ path, ...(offset ? { line: offset } : {}) }];
    }
    case "write_file":
    case "edit_file":
    case "multi_edit":
    case "ls":
      return at("path") ? [{ path: at("path") }] : [];
    case "move_file":
      return [at("source"), at("destination")].filter((p) => p !== "").map((path) => ({ path }));
    default:
      return [];
  }
}

/** The `tool_call` update that announces `call`, pending, with optional `content`. */
export function toolCallStarted(
  call: ToolCall,
  root: string,
  content?: ToolCallContent[],
): SessionUpdate {
  return {
    sessionUpdate: "tool_call",
    toolCallId: call.id,
    title: toolTitle(call),
    kind: callKind(call),
    status: "pending",
    locations: toolLocations(call, root),
    rawInput: callArguments(call),
    ...(content ? { content } : {}),
  };
}

/** A text block as tool call content. */
export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

const ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[( |x|X)\]\s+)?(.+?)\s*$/;

/**
 * A plan as ACP plan entries: each list item of its Markdown (`- [x]` items are completed),
 * or its title when it has no list.
 */
export function planEntries(plan: { title: string; text: string }): PlanEntry[] {
  const entries: PlanEntry[] = [];
  for (const line of plan.text.split("\n")) {
    const m = ITEM.exec(line);
    if (!m) continue;
    entries.push({
      content: m[2],
      priority: "medium",
      status: m[1] === "x" || m[1] === "X" ? "completed" : "pending",
    });
  }
  if (entries.length === 0) {
    entries.push({
      content: plan.title || oneLine(plan.text),
      priority: "medium",
      status: "pending",
    });
  }
  return entries;
}

/** Why a prompt turn stopped, in ACP's words. */
export function stopReason(status: RunStatus): StopReason {
  switch (status) {
    case "cancelled":
      return "cancelled";
    case "max_turns":
      return "max_turn_requests";
    case "budget_exceeded":
      return "max_tokens";
    default:
      return "end_turn";
  }
}

/**
 * A stored conversation as the updates that show it again (`session/load`): the user's own
 * words, the answers and reasoning, and every tool call with its result.
 */
export function replayUpdates(messages: readonly Message[], root: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const calls = new Map<string, ToolCall>();
  for (const m of messages) {
    if (m.role === "user") {
      const text = userText(m.content);
      if (text) {
        updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
      }
      for (const image of m.images ?? []) {
        if ("data" in image) {
          updates.push({
            sessionUpdate: "user_message_chunk",
            content: { type: "image", data: image.data, mimeType: image.mediaType },
          });
        }
      }
    } else if (m.role === "assistant") {
      if (m.reasoning) {
        updates.push({
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text: m.reasoning },
        });
      }
      if (m.content) {
        updates.push({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: m.content },
        });
      }
      for (const call of m.toolCalls ?? []) {
        calls.set(call.id, call);
        updates.push(toolCallStarted(call, root));
      }
    } else if (m.role === "tool" && m.toolCallId && calls.has(m.toolCallId)) {
      updates.push({
        sessionUpdate: "tool_call_update",
        toolCallId: m.toolCallId,
        status: m.isError ? "failed" : "completed",
        content: [textContent(m.content)],
      });
    }
  }
  return updates;
}
