/**
 * Scheduling slots for subagents (spec §3.12, §3.15): at most `concurrency` children at once,
 * at most `writers` of them writing, and write reservations that keep writers apart. A writer
 * with a claim reserves its claimed paths; a writer without one reserves the whole workspace,
 * so it never starts beside another writer. While such a writer has changed files only through
 * path-taking tools, its reservation narrows to the files it wrote, and writers whose claims do
 * not hold those files may start beside it; a `bash` or MCP change makes it whole again for
 * the rest of its run. Directory claims may run together; they conflict only when two children
 * land on the same file, which {@linkcode Slot.touch} refuses.
 *
 * @module
 */
import { isWithin } from "../../tools/paths.ts";

/** What a child asks of the scheduler. */
export interface SlotRequest {
  /** `read`: no writes; `claim`: writes inside `roots`; `workspace`: writes anywhere in it. */
  kind: "read" | "claim" | "workspace";
  /** Canonical claimed roots, for `claim`. */
  roots?: readonly string[];
}

/** A held slot; release it when the child ends. */
export interface Slot {
  /**
   * Records that the child writes `file` (canonical) through a path-taking tool; false when a
   * sibling holds it. A whole-workspace reservation not yet widened narrows to such files.
   */
  touch(file: string): boolean;
  /**
   * Records a change the host cannot attribute to paths (`bash`, an MCP writer): a
   * whole-workspace reservation stays whole for the rest of the run.
   */
  widen(): void;
  /** Frees the slot. Idempotent. */
  release(): void;
}

interface Held {
  request: SlotRequest;
  files: Set<string>;
  /** A `workspace` writer that has changed files only through path tools, at least one. */
  narrowed: boolean;
  /** A `workspace` writer that made a change not attributable to paths. */
  widened: boolean;
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
    const held: Held = { request, files: new Set(), narrowed: false, widened: false };
    this.#held.add(held);
    let released = false;
    return {
      touch: (file) => {
        for (const other of this.#held) {
          if (other !== held && other.files.has(file)) return false;
        }
        held.files.add(file);
        if (request.kind === "workspace" && !held.widened && !held.narrowed) {
          held.narrowed = true;
          this.#wake();
        }
        return true;
      },
      widen: () => {
        held.widened = true;
        held.narrowed = false;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#held.delete(held);
        this.#wake();
      },
    };
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #fits(request: SlotRequest): boolean {
    if (this.#held.size >= this.#concurrency) return false;
    if (request.kind === "read") return true;
    const writers = [...this.#held].filter((h) => h.request.kind !== "read");
    if (writers.length >= this.#writers) return false;
    // The whole workspace: alone among writers, and no writer beside it.
    if (request.kind === "workspace") return writers.length === 0;
    const roots = request.roots ?? [];
    return !writers.some((h) =>
      h.request.kind === "workspace" &&
      (!h.narrowed || [...h.files].some((file) => roots.some((root) => isWithin(root, file))))
    );
  }
}
