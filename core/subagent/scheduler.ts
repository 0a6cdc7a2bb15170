/**
 * Scheduling slots for subagents (spec §3.12, §3.15): at most `concurrency` children at once,
 * at most `writers` of them writing, and write reservations that keep writers apart. A writer
 * with a claim reserves its claimed paths; a writer without one reserves the whole workspace,
 * so it never starts beside another writer. Directory claims may run together; they conflict
 * only when two children land on the same file, which {@linkcode Scheduler.touch} refuses.
 *
 * @module
 */

/** What a child asks of the scheduler. */
export interface SlotRequest {
  /** `read`: no writes; `claim`: writes inside `roots`; `workspace`: writes anywhere in it. */
  kind: "read" | "claim" | "workspace";
  /** Canonical claimed roots, for `claim`. */
  roots?: readonly string[];
}

/** A held slot; release it when the child ends. */
export interface Slot {
  /** Records that the child writes `file` (canonical); false when a sibling holds it. */
  touch(file: string): boolean;
  /** Frees the slot. Idempotent. */
  release(): void;
}

interface Held {
  request: SlotRequest;
  files: Set<string>;
}

/**
 * The session's scheduler, shared by every child of a host.
 */
export class Scheduler {
  readonly #concurrency: number;
  readonly #writers: number;
  readonly #held = new Set<Held>();
  #waiters: (() => void)[] = [];

  constructor(opts: { concurrency: number; writers: number }) {
    this.#concurrency = Math.max(1, opts.concurrency);
    this.#writers = Math.max(1, opts.writers);
  }

  /** Children running now. */
  get running(): number {
    return this.#held.size;
  }

  /** Waits for a slot that fits `request`; rejects when `signal` aborts first. */
  async acquire(request: SlotRequest, opts: { signal: AbortSignal }): Promise<Slot> {
    while (!this.#fits(request)) {
      opts.signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          opts.signal.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          this.#waiters = this.#waiters.filter((w) => w !== wake);
          reject(opts.signal.reason);
        };
        opts.signal.addEventListener("abort", onAbort, { once: true });
        this.#waiters.push(wake);
      });
    }
    const held: Held = { request, files: new Set() };
    this.#held.add(held);
    let released = false;
    return {
      touch: (file) => {
        for (const other of this.#held) {
          if (other !== held && other.files.has(file)) return false;
        }
        held.files.add(file);
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#held.delete(held);
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const wake of waiters) wake();
      },
    };
  }

  #fits(request: SlotRequest): boolean {
    if (this.#held.size >= this.#concurrency) return false;
    if (request.kind === "read") return true;
    const writers = [...this.#held].filter((h) => h.request.kind !== "read");
    if (writers.length >= this.#writers) return false;
    // The whole workspace: alone among writers, and no writer beside it.
    if (request.kind === "workspace") return writers.length === 0;
    return !writers.some((h) => h.request.kind === "workspace");
  }
}
