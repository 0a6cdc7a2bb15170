/**
 * The interactive approval broker: the permission layer asks, the UI shows a modal overlay, the
 * user answers. Requests queue up in order; a cancelled turn withdraws its pending requests.
 *
 * @module
 */
import type { ApprovalBroker, ApprovalChoice, ApprovalRequest } from "../../core/agent/approval.ts";

interface Pending {
  request: ApprovalRequest;
  resolve(choice: ApprovalChoice): void;
}

/** An {@link ApprovalBroker} answered through the UI. */
export class UiApprovalBroker implements ApprovalBroker {
  #queue: Pending[] = [];
  readonly #listeners = new Set<() => void>();

  /** Queues `req` until the user answers or `signal` aborts (then it rejects with the reason). */
  request(req: ApprovalRequest, opts: { signal: AbortSignal }): Promise<ApprovalChoice> {
    if (opts.signal.aborted) return Promise.reject(opts.signal.reason);
    return new Promise<ApprovalChoice>((resolve, reject) => {
      const onAbort = () => {
        this.#queue = this.#queue.filter((p) => p !== entry);
        this.#notify();
        reject(opts.signal.reason);
      };
      const entry: Pending = {
        request: req,
        resolve: (choice) => {
          opts.signal.removeEventListener("abort", onAbort);
          resolve(choice);
        },
      };
      opts.signal.addEventListener("abort", onAbort, { once: true });
      this.#queue = [...this.#queue, entry];
      this.#notify();
    });
  }

  /** The request to show now, if any. */
  current(): ApprovalRequest | undefined {
    return this.#queue[0]?.request;
  }

  /** Answers the request with `id`; unknown ids are ignored. */
  answer(id: string, choice: ApprovalChoice): void {
    const entry = this.#queue.find((p) => p.request.id === id);
    if (!entry) return;
    this.#queue = this.#queue.filter((p) => p !== entry);
    entry.resolve(choice);
    this.#notify();
  }

  /** Calls `listener` whenever the queue changes; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }
}
