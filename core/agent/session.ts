/**
 * A conversation: an append-only list of immutable messages. Earlier bytes never change, so
 * every request is a byte-extension of the previous one (the cache-first invariant).
 *
 * @module
 */
import type { Message } from "../../providers/types.ts";

/** Called after each append, e.g. by the transcript store. */
export type AppendListener = (message: Message, index: number) => void;

/**
 * An append-only conversation.
 *
 * @example Record a conversation
 * ```ts
 * import { Session } from "@reasonix/reasonix";
 *
 * const session = new Session();
 * session.onAppend((message, index) => console.log(index, message.role));
 * session.append({ role: "user", content: "Hello" }); // logs: 0 user
 * console.log(session.id, session.messages.length); // <uuid> 1
 * ```
 */
export class Session {
  /** Stable identifier, used for transcripts and `--resume`. */
  readonly id: string;
  readonly #messages: Message[] = [];
  readonly #listeners: AppendListener[] = [];

  /** A new conversation, or one resumed from `history` under its `id`. */
  constructor(id: string = crypto.randomUUID(), history: readonly Message[] = []) {
    this.id = id;
    for (const message of history) this.#messages.push(Object.freeze({ ...message }));
  }

  /** The messages so far, oldest first. */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** Appends a message; it is frozen so nothing can rewrite history. */
  append(message: Message): void {
    const frozen = Object.freeze({ ...message });
    this.#messages.push(frozen);
    const index = this.#messages.length - 1;
    for (const listener of this.#listeners) listener(frozen, index);
  }

  /** Subscribes to appends. */
  onAppend(listener: AppendListener): void {
    this.#listeners.push(listener);
  }

  /** Ids of assistant tool calls that have no tool result yet. */
  unansweredToolCalls(): string[] {
    const answered = new Set<string>();
    for (const m of this.#messages) {
      if (m.role === "tool" && m.toolCallId) answered.add(m.toolCallId);
    }
    const open: string[] = [];
    for (const m of this.#messages) {
      for (const call of m.toolCalls ?? []) if (!answered.has(call.id)) open.push(call.id);
    }
    return open;
  }
}
