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

/**
 * What the previous call checked, per conversation (keyed by its first message): the input up
 * to `mark` (the start of its last group, which a later call may still extend) and, when that
 * prefix needed repair, the repaired output up to `outMark`.
 */
interface Checked {
  seen: Message[];
  mark: number;
  out: readonly Message[] | undefined;
  outMark: number;
}

const checked = new WeakMap<Message, Checked>();

/**
 * Returns `messages` with tool calls and results paired; the same array when already fine.
 * A history that extends the previous call's (object for object) is checked from where that
 * call left off, so a turn costs its new messages plus one pointer comparison per message.
 */
export function sanitizeHistory(messages: readonly Message[]): readonly Message[] {
  const first = messages[0];
  if (first === undefined) return messages;
  const memo = checked.get(first);
  let from = 0;
  let out: Message[] | undefined;
  if (memo && memo.mark <= messages.length && extends_(memo.seen, messages, memo.mark)) {
    from = memo.mark;
    if (memo.out) out = memo.out.slice(0, memo.outMark);
  }
  const emit = (i: number, m: Message) => {
    out ??= messages.slice(0, i);
    out.push(m);
  };
  let i = from;
  let mark = from;
  let outMark = out?.length ?? from;
  while (i < messages.length) {
    mark = i;
    outMark = out?.length ?? i;
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
  const seen = memo?.seen ?? [];
  seen.length = Math.min(seen.length, from);
  for (let k = seen.length; k < mark; k++) seen.push(messages[k]);
  checked.set(first, { seen, mark, out, outMark: out ? outMark : mark });
  return out ?? messages;
}

/** Whether `messages` starts with the first `n` messages of `seen`, object for object. */
function extends_(seen: readonly Message[], messages: readonly Message[], n: number): boolean {
  if (seen.length < n) return false;
  for (let i = 0; i < n; i++) if (seen[i] !== messages[i]) return false;
  return true;
}
