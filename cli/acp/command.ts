/**
 * `reasonix acp`: guards stdout, serves the editor on stdin/stdout until it disconnects, and
 * returns the exit code. Loaded lazily, with the ACP SDK, only for this command.
 *
 * @module
 */
import { EXIT_OK } from "../exit_codes.ts";
import type { PermissionFlags } from "../permission_flags.ts";
import { serveAcp } from "./connection.ts";
import { guardStdout } from "./stdout_guard.ts";

/** What `reasonix acp` was given. */
export interface AcpCommandOptions {
  /** `-m`: provider, model, or provider/model. */
  model?: string;
  /** `--permission-mode`, `--allow`, `--deny` and `--trust-project`. */
  permissions: PermissionFlags;
}

/** Runs the ACP agent on stdio until the client closes the connection. */
export async function acpCommand(opts: AcpCommandOptions): Promise<number> {
  const guard = guardStdout();
  const log = (line: string) => console.error(line);
  try {
    await serveAcp({
      output: guard.protocol,
      input: Deno.stdin.readable,
      env: Deno.env.toObject(),
      flags: { model: opts.model, ...opts.permissions },
      log,
    });
  } finally {
    guard.restore();
  }
  return EXIT_OK;
}
