/**
 * `reasonix config compact-ratio [--local] [VALUE]`.
 *
 * @module
 */
import type { Command } from "commander";
import { lazyImport } from "../lazy.ts";
import { action, type CliContext } from "./execute.ts";
import type { ConfigModule } from "./types.ts";

/** Adds `config` to `parent`. */
export function defineConfig(parent: Command, _ctx: CliContext): Command {
  const config = parent
    .command("config")
    .summary("show or change a setting")
    .description("Shows or changes a setting of the configuration.");
  const ratio = config
    .command("compact-ratio")
    .summary("show or set when context maintenance starts")
    .description(
      "Shows the effective [agent].compact_ratio, or sets it. Context maintenance starts when a " +
        "request reaches context_window × compact_ratio tokens. Lower compacts earlier (more " +
        "summaries, less prefix-cache reuse). Range 0.30–0.85; presets 0.70 (early), 0.80 " +
        "(default), 0.85 (late).",
    )
    .argument("[value]", "the new ratio; without it, the effective one is shown")
    .option("--local", "write the project's ./reasonix.toml instead of the user config");
  action(ratio, async (value: string | undefined, options: { local?: boolean }) => {
    const { compactRatioCommand } = await lazyImport<ConfigModule>(
      "cli/config_cmd.ts",
    );
    return await compactRatioCommand({ value, local: options.local === true });
  });
  return config;
}
