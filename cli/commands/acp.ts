/**
 * `reasonix acp`: Reasonix as an Agent Client Protocol agent over stdio, for editors (Zed,
 * JetBrains, Neovim, Emacs). Only the definition loads here; the agent and the ACP SDK load
 * when the command runs, so `--version` and `run` never pay for them.
 *
 * @module
 */
import type { Command } from "commander";
import { lazyImport } from "../lazy.ts";
import { type PermissionFlags, permissionFlags } from "../permission_flags.ts";
import { action, type CliContext } from "./execute.ts";
import { addPermissionOptions } from "./options.ts";

/** What `cli/acp/mod.ts` offers the command. */
interface AcpModule {
  acpCommand(opts: {
    model?: string;
    permissions: PermissionFlags;
  }): Promise<number>;
}

/** Adds `acp` to `parent`. */
export function defineAcp(parent: Command, _ctx: CliContext): Command {
  const acp = parent
    .command("acp")
    .summary("serve an editor over the Agent Client Protocol (stdio)")
    .description(
      "Speaks the Agent Client Protocol on stdin/stdout, for editors such as Zed, JetBrains " +
        "IDEs and Neovim. Reads the same configuration as `reasonix run` in the directory it " +
        "starts in; stdout carries protocol messages only, diagnostics go to stderr.",
    )
    .option("-m, --model <name>", "the model: provider, model, or provider/model");
  addPermissionOptions(acp);
  acp.addHelpText("after", "\nSee docs/ACP.md for editor configuration.");
  return action(acp, async (options: Record<string, unknown>) => {
    const { acpCommand } = await lazyImport<AcpModule>("cli/acp/mod.ts");
    return await acpCommand({
      model: options.model as string | undefined,
      permissions: permissionFlags(options),
    });
  });
}
