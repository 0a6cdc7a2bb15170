/**
 * Process exit codes, shared by every subcommand.
 *
 * @module
 */

/** The run finished its job. */
export const EXIT_OK = 0;
/** The run failed: provider error, turn limit, budget. */
export const EXIT_FAILURE = 1;
/** Bad usage or configuration; nothing was started. */
export const EXIT_USAGE = 2;
/** The run finished, but some of its actions were refused (no approver) or could not start. */
export const EXIT_REFUSED = 3;
/** Cancelled by SIGINT (128 + 2). */
export const EXIT_CANCELLED = 130;
/** Stopped by SIGTERM (128 + 15), after winding down like a cancel. */
export const EXIT_TERMINATED = 143;
