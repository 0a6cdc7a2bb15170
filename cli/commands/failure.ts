/**
 * How a command that failed with a {@link ReasonixError} ends: one line on stderr and an exit
 * code, not a stack trace. Shared by the command tree (`cli/app.ts`) and the fast path of
 * `reasonix run` (`fast_run.ts`).
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";
import { EXIT_FAILURE, EXIT_USAGE } from "../exit_codes.ts";

/**
 * Reports `error` and returns the exit code: 2 for what the user must fix in the configuration
 * or the command line (a broken home folder, an unknown session), 1 otherwise. Anything but a
 * {@link ReasonixError} is a bug and is thrown again.
 */
export function failureExit(error: unknown, io: { err(text: string): void }): number {
  if (!(error instanceof ReasonixError)) throw error;
  io.err(`reasonix: ${error.message}`);
  return error.code === "config_invalid" || error.code === "session_not_found"
    ? EXIT_USAGE
    : EXIT_FAILURE;
}
