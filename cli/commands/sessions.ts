/**
 * `reasonix sessions list [--json] [--limit <n>] [--offset <n>]`.
 *
 * @module
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { lazyImport } from "../lazy.ts";
import { action, type CliContext } from "./execute.ts";
import type { SessionsModule } from "./types.ts";

function count(name: string, min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) {
      throw new InvalidArgumentError(`${name} must be a whole number ≥ ${min}, got "${value}"`);
    }
    return n;
  };
}

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
      "Lists this workspace's sessions, newest first, a page at a time (20 unless --limit; " +
        "--json lists all unless --limit). Continue one with " +
        'reasonix run --resume <id> "…" (or --continue for the newest).',
    )
    .option("--json", "print them as one JSON array")
    .addOption(
      new Option("--limit <n>", "list at most n sessions").argParser(count("--limit", 1)),
    )
    .addOption(
      new Option("--offset <n>", "skip the n newest sessions").argParser(count("--offset", 0)),
    );
  action(list, async (options: { json?: boolean; limit?: number; offset?: number }) => {
    const { sessionsList } = await lazyImport<SessionsModule>(
      "cli/sessions_cmd.ts",
    );
    return await sessionsList({
      json: options.json === true,
      limit: options.limit,
      offset: options.offset,
    });
  });
  return sessions;
}
