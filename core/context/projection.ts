/**
 * The provider-visible view: the canonical transcript with the current checkpoint applied.
 * The canonical messages are never rewritten; a projection only says which prefix a summary
 * replaces and which tool results are shown pruned or blanked. Derived messages are computed
 * once per canonical message and shared by every later projection, so between checkpoints
 * every view is the previous view plus new messages, object for object, and a prune rewrites
 * only the results it prunes.
 *
 * Nothing in the view counts or dates anything: a checkpoint's text is its summary, a
 * truncation note names only what it dropped, so the bytes change only where content does.
 *
 * @module
 */
import type { Message } from "../../providers/types.ts";
import type { ProjectionRecord } from "../store/transcript.ts";
import { pruneText } from "./prune.ts";

/** Placeholder for a tool result removed by the lossy `truncate` projection. */
export const BLANKED_RESULT =
  "[tool result removed to fit the context window; the full text stays in the session transcript]";

/** The empty projection: the canonical transcript as is. */
export function emptyProjection(): ProjectionRecord {
  return { generation: 0, summarizedUpTo: 0, pruned: [] };
}

/** The text of the message that stands in for everything before the tail. */
export function headText(p: ProjectionRecord, droppedMessages: number): string | undefined {
  const parts: string[] = [];
  if (p.summary !== undefined) {
    parts.push(
      "<checkpoint>\nSummary of the earlier conversation, which it replaces:\n\n" +
        `${p.summary.trim()}\n</checkpoint>`,
    );
  }
  if (droppedMessages > 0) {
    parts.push(
      `[Context note: ${droppedMessages} earlier message(s) were dropped to fit the context window.]`,
    );
  }
  return parts.length ? parts.join("\n\n") : undefined;
}

// A pruned or blanked form depends on its canonical message alone: one per message for the
// whole process, so a new projection, a new context manager over the same session (a model
// switch) and every later view share it, and its token estimate and wire fragment with it.
const prunedForms = new WeakMap<Message, Message>();
const blankedForms = new WeakMap<Message, Message>();

/**
 * The pruned and blanked forms of tool results, made once per canonical message and reused by
 * every projection of the conversation (so their token estimates are memoized too).
 */
export class DerivedMessages {
  readonly #pruned = prunedForms;
  readonly #blanked = blankedForms;
  readonly #folded = new WeakMap<Message, Message>();
  #standalone: Message | undefined;

  /** The head text folded into the first kept user message. */
  folded(first: Message, text: string): Message {
    const content = `${text}\n\n${first.content}`;
    let m = this.#folded.get(first);
    if (m?.content !== content) {
      m = Object.freeze({ ...first, content });
      this.#folded.set(first, m);
    }
    return m;
  }

  /** The head text as a message of its own. */
  standalone(text: string): Message {
    if (this.#standalone?.content !== text) {
      this.#standalone = Object.freeze({ role: "user" as const, content: text });
    }
    return this.#standalone;
  }

  /** The pruned form of a tool result. */
  pruned(original: Message): Message {
    let m = this.#pruned.get(original);
    if (!m) {
      const { rawContent: _raw, ...rest } = original;
      m = Object.freeze({ ...rest, content: pruneText(original.content) });
      this.#pruned.set(original, m);
    }
    return m;
  }

  /** The blanked form of a tool result. */
  blanked(original: Message): Message {
    let m = this.#blanked.get(original);
    if (!m) {
      const { rawContent: _raw, ...rest } = original;
      m = Object.freeze({ ...rest, content: BLANKED_RESULT });
      this.#blanked.set(original, m);
    }
    return m;
  }
}

/** Builds and memoizes views for one projection. */
export class ProjectionView {
  readonly record: ProjectionRecord;
  readonly #pruned: Set<number>;
  readonly #blanked: Set<number>;
  readonly #derived: DerivedMessages;

  constructor(record: ProjectionRecord, derived: DerivedMessages = new DerivedMessages()) {
    this.record = record;
    this.#pruned = new Set(record.pruned);
    this.#blanked = new Set(record.truncated?.blanked ?? []);
    this.#derived = derived;
  }

  /** Index of the first canonical message shown verbatim (or pruned). */
  get start(): number {
    return Math.max(this.record.summarizedUpTo, this.record.truncated?.droppedUpTo ?? 0);
  }

  /** Canonical messages dropped without a summary. */
  get dropped(): number {
    const d = this.record.truncated?.droppedUpTo ?? 0;
    return Math.max(0, d - this.record.summarizedUpTo);
  }

  /** Whether canonical index `i` is shown blanked. */
  isBlanked(i: number): boolean {
    return this.#blanked.has(i);
  }

  /** Whether canonical index `i` is shown pruned. */
  isPruned(i: number): boolean {
    return this.#pruned.has(i);
  }

  /** The view message for canonical index `i` (≥ start), ignoring the head. */
  message(canonical: readonly Message[], i: number): Message {
    const original = canonical[i];
    if (original.role !== "tool") return original;
    if (this.#blanked.has(i)) return this.#derived.blanked(original);
    if (this.#pruned.has(i)) return this.#derived.pruned(original);
    return original;
  }

  /**
   * The first view message when the projection has a head: the head folded into the first
   * kept user message, or the head on its own. Undefined without a head.
   */
  head(canonical: readonly Message[]): { message: Message; folded: boolean } | undefined {
    const text = headText(this.record, this.dropped);
    if (text === undefined) return undefined;
    const first = canonical[this.start];
    // Two user messages in a row confuse some providers: fold the head into the first.
    if (first?.role === "user") return { message: this.#derived.folded(first, text), folded: true };
    return { message: this.#derived.standalone(text), folded: false };
  }

  /** The full view of `canonical`. */
  view(canonical: readonly Message[]): Message[] {
    const out: Message[] = [];
    let i = this.start;
    const head = this.head(canonical);
    if (head) {
      out.push(head.message);
      if (head.folded) i++;
    }
    for (; i < canonical.length; i++) out.push(this.message(canonical, i));
    return out;
  }

  /** How many leading view messages stand for canonical messages before index `i`. */
  viewIndexOf(canonical: readonly Message[], i: number): number {
    const start = this.start;
    const hasHead = headText(this.record, this.dropped) !== undefined;
    if (!hasHead) return i - start;
    const folded = canonical[start]?.role === "user";
    return folded ? i - start : i - start + 1;
  }
}
