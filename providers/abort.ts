/**
 * Signals for one call that follow a longer-lived one.
 *
 * @module
 */

/** A signal for one call, from {@linkcode linkedSignal}; `dispose` lets go of the parent. */
export interface LinkedSignal extends Disposable {
  /** Aborted with the parent's reason, or with the timeout's once it passes. */
  readonly signal: AbortSignal;
  /** Whether the timeout, not the parent, aborted the signal. */
  readonly timedOut: boolean;
}

/** Options of {@linkcode linkedSignal}. */
export interface LinkedSignalOptions {
  /** Abort after this many milliseconds (none when absent, zero, negative or infinite). */
  timeoutMs?: number;
  /** The reason a timeout aborts with; a `TimeoutError` `DOMException` by default. */
  timeoutReason?: () => unknown;
}

/**
 * A signal that aborts when `parent` does or when `timeoutMs` pass, whichever comes first,
 * until disposed. It stands in for `AbortSignal.any` and `AbortSignal.timeout` on paths run
 * every turn: `any` registers each new signal with its long-lived parent until a full
 * collection finds it dead, and `timeout` keeps its timer until it fires, so a session's turns
 * piled up old-generation garbage. Disposing removes the one listener and the one timer.
 */
export function linkedSignal(parent: AbortSignal, opts: LinkedSignalOptions = {}): LinkedSignal {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const release = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    parent.removeEventListener("abort", onAbort);
  };
  const onAbort = (): void => {
    release();
    controller.abort(parent.reason);
  };
  if (parent.aborted) controller.abort(parent.reason);
  else {
    parent.addEventListener("abort", onAbort, { once: true });
    const ms = opts.timeoutMs;
    if (ms !== undefined && ms > 0 && Number.isFinite(ms)) {
      timer = setTimeout(() => {
        timer = undefined;
        timedOut = true;
        release();
        controller.abort(
          opts.timeoutReason?.() ?? new DOMException("The operation timed out.", "TimeoutError"),
        );
      }, ms);
    }
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    [Symbol.dispose]: release,
  };
}
