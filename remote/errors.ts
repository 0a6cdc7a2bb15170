/**
 * Failures of a remote workspace that callers (the command line) act on, by code.
 *
 * @module
 */
import { ReasonixError, type RemoteErrorCode } from "../errors.ts";

export type { RemoteErrorCode };

/** A remote-workspace failure: unreachable host, refused key, failed login, missing path. */
export class RemoteError extends ReasonixError {
  /** The code, one of {@linkcode RemoteErrorCode}. */
  declare readonly code: RemoteErrorCode;

  /** An error with `code` and a message that names what to do. */
  constructor(code: RemoteErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = "RemoteError";
  }
}
