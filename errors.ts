/**
 * The error base shared by every layer. Callers branch on `code`, never on message text.
 *
 * @module
 */

/** A condition a caller is expected to handle, identified by a stable `code`. */
export class ReasonixError extends Error {
  /** Stable machine-readable identifier, e.g. `config_invalid`. */
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ReasonixError";
    this.code = code;
  }
}
