/**
 * `reasonix completions bash|zsh|fish`: prints a completion script generated from the command
 * tree (`cli/completions.ts`, loaded only here).
 *
 * @module
 */
import { Argument, type Command } from "commander";
import { EXIT_OK } from "../exit_codes.ts";
import { lazyImport } from "../lazy.ts";
import { action, type CliContext } from "./execute.ts";
import type { CompletionsModule, Shell } from "./types.ts";

export type { Shell } from "./types.ts";

/** The shells a completion script can be printed for. */
export const SHELLS: readonly Shell[] = ["bash", "zsh", "fish"];

const INSTALL = `
Install:
  bash  reasonix completions bash > ~/.local/share/bash-completion/completions/reasonix
  zsh   reasonix completions zsh > "\${fpath[1]}/_reasonix"   (then restart zsh)
  fish  reasonix completions fish > ~/.config/fish/completions/reasonix.fish`;

/** Adds `completions` to `parent`. */
export function defineCompletions(parent: Command, ctx: CliContext): Command {
  const completions = parent
    .command("completions")
    .summary("print a shell completion script")
    .description("Prints a completion script for bash, zsh or fish, for every command and option.")
    .addArgument(new Argument("<shell>", "the shell").choices(SHELLS))
    .addHelpText("after", INSTALL);
  return action(completions, async (shell: Shell) => {
    let root = completions;
    while (root.parent) root = root.parent;
    const { completionScript } = await lazyImport<CompletionsModule>(
      "cli/completions.ts",
    );
    ctx.io.out(completionScript(root, shell).replace(/\n$/, ""));
    return EXIT_OK;
  });
}
