/**
 * A first-in-first-out gate that lets one call through at a time (spec §3.16 `serial`).
 * A queued call that is cancelled leaves the queue without ever running.
 *
 * @module
 */

/** Releases the gate; calling it twice is harmless. */
export type Release = () => void;

/** The gate. */
export class SerialGate {
  #busy = false;
  readonly #queue: { grant(): void; signal?: AbortSignal }[] = [];

  /** Calls waiting behind the running one. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Waits for the turn of this call. Rejects with the signal's reason when aborted first. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!this.#busy) {
      this.#busy = true;
      return Promise.resolve(this.#releaser());
    }
    return new Promise<Release>((resolve, reject) => {
      const entry = {
        signal,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#releaser());
        },
      };
      const onAbort = () => {
        const at = this.#queue.indexOf(entry);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(entry);
    });
  }

  /** Runs `fn` when the gate allows. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      if (next) next.grant();
      else this.#busy = false;
    };
  }
}
