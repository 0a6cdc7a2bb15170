/**
 * The error `reasonix serve` stops with: a setting or flag that cannot be used safely.
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";

/** A `[serve]` setting or flag that cannot be used; the message says what to change. */
export class ServeError extends ReasonixError {
  constructor(message: string) {
    super("config_invalid", message);
    this.name = "ServeError";
  }
}
