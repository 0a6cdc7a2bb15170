/**
 * The provider-visible view: the canonical transcript with the current checkpoint applied.
 * The canonical messages are never rewritten; a projection only says which prefix a summary
 * replaces and which tool results are shown pruned or blanked. Derived messages are memoized,
 * so between checkpoints every view is the previous view plus new messages, object for object.
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
      `<checkpoint generation="${p.generation}">\n` +
        "Summary of the earlier conversation, which it replaces:\n\n" +
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

/** Builds and memoizes views for one projection. */
export class ProjectionView {
  readonly record: ProjectionRecord;
  readonly #pruned: Set<number>;
  readonly #blanked: Set<number>;
  readonly #derived = new Map<number, Message>();
  #head: Message | undefined;
  #headFor: Message | undefined;

  constructor(record: ProjectionRecord) {
    this.record = record;
    this.#pruned = new Set(record.pruned);
    this.#blanked = new Set(record.truncated?.blanked ?? []);
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

  /** The view message for canonical index `i` (≥ start). */
  message(canonical: readonly Message[], i: number): Message {
    const original = canonical[i];
    if (original.role !== "tool") return original;
    const blanked = this.#blanked.has(i);
    if (!blanked && !this.#pruned.has(i)) return original;
    let derived = this.#derived.get(i);
    if (!derived) {
      const { rawContent: _raw, ...rest } = original;
      derived = Object.freeze({
        ...rest,
        content: blanked ? BLANKED_RESULT : pruneText(original.content),
      });
      this.#derived.set(i, derived);
    }
    return derived;
  }

  /** The full view of `canonical`. */
  view(canonical: readonly Message[]): Message[] {
    const start = this.start;
    const out: Message[] = [];
    const text = headText(this.record, this.dropped);
    let i = start;
    if (text !== undefined) {
      const first = canonical[start];
      if (first?.role === "user") {
        // Two user messages in a row confuse some providers: fold the head into the first.
        if (this.#headFor !== first) {
          this.#head = Object.freeze({ ...first, content: `${text}\n\n${first.content}` });
          this.#headFor = first;
        }
        out.push(this.#head!);
        i++;
      } else {
        if (this.#headFor !== undefined || !this.#head) {
          this.#head = Object.freeze({ role: "user" as const, content: text });
          this.#headFor = undefined;
        }
        out.push(this.#head);
      }
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
