/**
 * `reasonix sessions list [--json]`.
 *
 * @module
 */
import type { Command } from "commander";
import { lazyImport } from "../lazy.ts";
import { action, type CliContext } from "./execute.ts";
import type { SessionsModule } from "./types.ts";

/** Adds `sessions` to `parent`. */
export function defineSessions(parent: Command, _ctx: CliContext): Command {
  const sessions = parent
    .command("sessions")
    .summary("list this workspace's sessions")
    .description("This workspace's sessions.");
  const list = sessions
    .command("list")
    .alias("ls")
    .summary("list this workspace's sessions, newest first")
    .description(
      "Lists this workspace's sessions, newest first. Continue one with " +
        'reasonix run --resume <id> "…" (or --continue for the newest).',
    )
    .option("--json", "print them as one JSON array");
  action(list, async (options: { json?: boolean }) => {
    const { sessionsList } = await lazyImport<SessionsModule>(
      "cli/sessions_cmd.ts",
    );
    return await sessionsList({ json: options.json === true });
  });
  return sessions;
}
