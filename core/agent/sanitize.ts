/**
 * Pairing repair before every request: each assistant tool call gets a result and no tool
 * result is an orphan, so a provider never answers with a pairing 400. The loop keeps
 * sessions well-formed on its own; this catches transcripts damaged outside it (a crash, a
 * hand-edited file, a projection boundary). Unchanged input is returned as the same array,
 * and repaired messages are memoized, so the prefix stays byte-stable.
 *
 * @module
 */
import type { Message } from "../../providers/types.ts";

/** The result given to a tool call that has none. */
export const MISSING_RESULT = "No result was recorded for this tool call.";

const placeholders = new WeakMap<Message, Map<string, Message>>();

function placeholder(owner: Message, id: string, name: string): Message {
  let byId = placeholders.get(owner);
  if (!byId) placeholders.set(owner, byId = new Map());
  let message = byId.get(id);
  if (!message) {
    message = Object.freeze({
      role: "tool" as const,
      toolCallId: id,
      name,
      content: MISSING_RESULT,
      isError: true,
    });
    byId.set(id, message);
  }
  return message;
}

/** Returns `messages` with tool calls and results paired; the same array when already fine. */
export function sanitizeHistory(messages: readonly Message[]): readonly Message[] {
  let out: Message[] | undefined;
  const emit = (i: number, m: Message) => {
    out ??= messages.slice(0, i);
    out.push(m);
  };
  let i = 0;
  while (i < messages.length) {
    const m = messages[i];
    if (m.role === "tool") {
      // A result with no call right before it: drop it.
      out ??= messages.slice(0, i);
      i++;
      continue;
    }
    if (out) out.push(m);
    i++;
    const calls = m.role === "assistant" ? m.toolCalls ?? [] : [];
    if (calls.length === 0) continue;
    const pending = new Map(calls.map((c) => [c.id, c.name]));
    while (i < messages.length && messages[i].role === "tool") {
      const result = messages[i];
      if (result.toolCallId !== undefined && pending.has(result.toolCallId)) {
        pending.delete(result.toolCallId);
        if (out) out.push(result);
      } else {
        out ??= messages.slice(0, i);
      }
      i++;
    }
    if (pending.size) {
      for (const [id, name] of pending) emit(i, placeholder(m, id, name));
    }
  }
  return out ?? messages;
}
