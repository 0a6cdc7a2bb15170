/**
 * `reasonix doctor [--json]`.
 *
 * @module
 */
import type { Command } from "commander";
import { lazyImport } from "../lazy.ts";
import { action, type CliContext, UsageError } from "./execute.ts";

const ABOUT = "Checks what a run in this directory needs: the Reasonix and Deno versions, the " +
  "configuration files and their warnings, each provider's API key (present or missing, " +
  "never shown) and whether its endpoint answers GET /models, the sandbox (one confined test " +
  "command), the MCP servers (project servers only when trusted) and their trust, the " +
  "instruction files and the size of this workspace's sessions. Exits 1, naming the fix, when " +
  "something a run needs is broken.";

/** Adds `doctor` to `parent`. */
export function defineDoctor(parent: Command, ctx: CliContext): Command {
  return action(
    parent.command("doctor")
      .summary("check the configuration, keys, endpoints, sandbox and MCP servers")
      .description(ABOUT)
      .option("--json", "print one JSON document on stdout and nothing else")
      .option("--timeout <seconds>", "per endpoint and for the sandbox command (default 5)"),
    async (options: { json?: boolean; timeout?: string }) => {
      let timeoutMs: number | undefined;
      if (options.timeout !== undefined) {
        const seconds = Number(options.timeout);
        if (!Number.isFinite(seconds) || seconds <= 0) {
          throw new UsageError(
            `--timeout needs a positive number of seconds, got "${options.timeout}"`,
          );
        }
        timeoutMs = seconds * 1000;
      }
      const { doctorCommand } = await lazyImport<typeof import("../doctor/command.ts")>(
        "cli/doctor/command.ts",
      );
      return await doctorCommand({ json: options.json === true, timeoutMs }, ctx);
    },
  );
}
