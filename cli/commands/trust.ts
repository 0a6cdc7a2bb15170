/**
 * `reasonix trust [status|list|grant|revoke]`.
 *
 * @module
 */
import type { Command } from "commander";
import { lazyImport } from "../lazy.ts";
import { action, type CliContext, unknownCommand } from "./execute.ts";
import type { TrustModule, TrustRequest } from "./types.ts";

const ABOUT = "Project files (./reasonix.toml, ./.mcp.json) are untrusted input: a cloned " +
  "repository, a git pull or the model can write them. The MCP servers they declare start, " +
  "their loosening settings ([permissions].allow, [sandbox].allow_write, ...) apply, and a " +
  "provider endpoint they set is used, only once you trusted that exact declaration in this " +
  "workspace. Any change to a declaration voids its trust.";

const FOOTER = `
A single run can trust the project without recording it: reasonix run --trust-project "…".
Grants are stored in ~/.reasonix/trust.json (REASONIX_HOME overrides).`;

/** Adds `trust` to `parent`; without a command it shows the status. */
export function defineTrust(parent: Command, ctx: CliContext): Command {
  const run = async (request: TrustRequest) => {
    const { runTrust } = await lazyImport<TrustModule>("cli/trust.ts");
    return await runTrust(request, ctx);
  };
  const trust = parent
    .command("trust")
    .summary("trust the MCP servers and settings this project declares")
    .description(ABOUT)
    .addHelpText("after", FOOTER)
    .allowExcessArguments(true);
  action(trust, (_options: unknown, command: Command) => {
    if (command.args.length > 0) unknownCommand(command);
    return run({ command: "status" });
  });
  action(
    trust.command("status")
      .description("show what this workspace declares and what is trusted (the default)"),
    () => run({ command: "status" }),
  );
  action(
    trust.command("list").alias("ls")
      .description("every workspace with its trusted declarations")
      .option("--json", "print them as JSON"),
    (options: { json?: boolean }) => run({ command: "list", json: options.json === true }),
  );
  action(
    trust.command("grant")
      .description(
        "trust the current declarations of this workspace: NAME is an MCP server or provider " +
          'name, or "settings" for the loosening settings',
      )
      .argument("[names...]", "what to trust")
      .option("--all", "everything this workspace declares"),
    (names: string[], options: { all?: boolean }) =>
      run({ command: "grant", all: options.all === true, names }),
  );
  action(
    trust.command("revoke")
      .description("forget trust in this workspace (or in <dir>)")
      .argument("[names...]", "what to forget")
      .option("--all", "everything trusted in the workspace")
      .option("--workspace <dir>", "the workspace to forget trust in (default: this one)"),
    (names: string[], options: { all?: boolean; workspace?: string }) =>
      run({ command: "revoke", all: options.all === true, names, workspace: options.workspace }),
  );
  return trust;
}
