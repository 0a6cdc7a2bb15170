/**
 * One session's event stream as the browser receives it: every event gets the next id, the
 * newest events stay in a bounded ring, and a reconnecting client presenting the last id it
 * saw gets exactly the events after it. An id the ring no longer holds, or one from another
 * run of the server, cannot be resumed: the client is told to resync from the stored session.
 *
 * @module
 */

/** One event with its id. */
export interface StreamEntry {
  /** `<epoch>-<n>`: `n` increases by one per event; `epoch` names this ring. */
  id: string;
  /** The event as JSON text. */
  data: string;
}

/** What a client gets for the id it presents. */
export type Replay =
  | { kind: "events"; entries: StreamEntry[] }
  | { kind: "resync"; reason: string };

/** A bounded, id-numbered event stream with live subscribers. */
export class EventRing {
  readonly epoch: string;
  readonly #capacity: number;
  readonly #entries: StreamEntry[] = [];
  /** Number of the newest event; 0 before the first. */
  #last = 0;
  readonly #listeners = new Set<(entry: StreamEntry) => void>();

  constructor(opts: { capacity?: number; epoch?: string } = {}) {
    this.#capacity = opts.capacity ?? 4096;
    this.epoch = opts.epoch ?? crypto.randomUUID().slice(0, 8);
  }

  /** The id of the newest event (`<epoch>-0` before the first). */
  get lastId(): string {
    return `${this.epoch}-${this.#last}`;
  }

  /** Events held now. */
  get size(): number {
    return this.#entries.length;
  }

  /** Appends `event`, hands it to every subscriber and returns its id. */
  push(event: unknown): string {
    this.#last++;
    const entry = { id: `${this.epoch}-${this.#last}`, data: JSON.stringify(event) };
    this.#entries.push(entry);
    if (this.#entries.length > this.#capacity) this.#entries.shift();
    for (const listener of this.#listeners) listener(entry);
    return entry.id;
  }

  /** The events after `id`; `undefined` id: none (a fresh client starts at the live end). */
  since(id: string | undefined): Replay {
    if (id === undefined || id === "") return { kind: "events", entries: [] };
    const m = /^([0-9a-f]+)-(\d+)$/.exec(id);
    if (!m || m[1] !== this.epoch) {
      return { kind: "resync", reason: "the server restarted or the id is not this session's" };
    }
    const n = Number(m[2]);
    if (n > this.#last) return { kind: "resync", reason: "the id is ahead of this stream" };
    const oldest = this.#last - this.#entries.length + 1;
    // Event n+1 must still be held for nothing to be lost.
    if (n + 1 < oldest) return { kind: "resync", reason: "the events after that id are gone" };
    return { kind: "events", entries: this.#entries.slice(n + 1 - oldest) };
  }

  /** Calls `listener` for each new event; returns the unsubscribe function. */
  subscribe(listener: (entry: StreamEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Live subscribers. */
  get subscribers(): number {
    return this.#listeners.size;
  }
}
