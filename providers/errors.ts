/**
 * Typed provider failures. The agent loop branches on `code`; the CLI prints `message`.
 *
 * @module
 */
import { type ProviderErrorCode, ReasonixError } from "../errors.ts";

export type { ProviderErrorCode } from "../errors.ts";

/**
 * A failed provider request or stream.
 *
 * @example Retry only what may succeed
 * ```ts
 * import { ProviderError } from "@reasonix/reasonix";
 *
 * const error = new ProviderError("provider_rate_limited", "429 Too Many Requests", {
 *   status: 429,
 *   retryable: true,
 *   retryAfterMs: 2_000,
 * });
 * console.log(error.retryable, error.retryAfterMs); // true 2000
 * ```
 */
export class ProviderError extends ReasonixError {
  /** HTTP status when the server answered, else undefined. */
  readonly status?: number;
  /** Whether retrying the same request may succeed. */
  readonly retryable: boolean;
  /** Server-requested delay before retrying, in milliseconds. */
  readonly retryAfterMs?: number;
  /** What to check or change, in one line; also the message's last line (`fix: …`). */
  readonly fix?: string;

  /** `options.retryable` defaults to false; `options.fix` is appended as a `fix:` line. */
  constructor(
    code: ProviderErrorCode,
    message: string,
    options: ErrorOptions & {
      status?: number;
      retryable?: boolean;
      retryAfterMs?: number;
      fix?: string;
    } = {},
  ) {
    super(code, options.fix ? `${message}\nfix: ${options.fix}` : message, options);
    this.name = "ProviderError";
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.fix = options.fix;
  }
}

/** The prompt no longer fits the model's window; the context layer must compact and retry. */
export class ContextOverflowError extends ProviderError {
  constructor(message: string, options: ErrorOptions & { status?: number; fix?: string } = {}) {
    super("context_overflow", message, options);
    this.name = "ContextOverflowError";
  }
}

/**
 * A provider table's kind-specific option has a value its kind does not accept. A `TypeError`
 * (bad argument); the CLI turns it into a configuration error naming the file and line.
 */
export class ProviderOptionError extends TypeError {
  /** The provider's name. */
  readonly provider: string;
  /** The option key, e.g. `thinking`. */
  readonly option: string;
  /** What the option accepts, e.g. `"enabled" or "disabled"`. */
  readonly expected: string;

  constructor(provider: string, option: string, expected: string) {
    super(`provider "${provider}": ${option} must be ${expected}`);
    this.name = "ProviderOptionError";
    this.provider = provider;
    this.option = option;
    this.expected = expected;
  }
}
