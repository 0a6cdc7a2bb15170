/**
 * `reasonix config compact-ratio [--local] [VALUE]`: shows or sets the compaction trigger
 * ratio. The project file beats the user file; the effective value is always shown.
 *
 * @module
 */
// The provider kinds register on import; `run` has them too, so the same files load here.
import "../providers/builtin_kinds.ts";
import { join } from "node:path";
import { ConfigError, loadConfig, reasonixHome } from "../core/config/mod.ts";
import { parseConfigToml, readConfigText } from "../core/config/files.ts";
import { setTomlValue, writeTomlFile } from "../core/config/toml_edit.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";

/**
 * The effective ratio and the file it comes from. The configuration is loaded exactly as
 * `reasonix run` loads it, so a file `run` rejects is a {@link ConfigError} here too rather
 * than a value that would never be used.
 */
export async function effectiveCompactRatio(
  cwd: string,
  home: string,
  env: Record<string, string | undefined>,
): Promise<{ value: number; source: string }> {
  const config = await loadConfig({ cwd, env, home });
  const value = config.agent.compact_ratio;
  // Later files override earlier ones, so the last file that sets the key is its source.
  for (const file of [...config.sources].reverse()) {
    const agent = parseConfigToml(await readConfigText(file) ?? "", file).agent;
    if (typeof agent === "object" && agent !== null && "compact_ratio" in agent) {
      return { value, source: file };
    }
  }
  return { value, source: "built-in default" };
}

/**
 * Runs `reasonix config compact-ratio [--local] [VALUE]` (parsed by `cli/commands/config.ts`):
 * shows the effective ratio without a value, sets it with one. Returns the exit code.
 */
export async function compactRatioCommand(
  opts: { value?: string; local: boolean },
): Promise<number> {
  const positionals = opts.value === undefined ? [] : [opts.value];
  const cwd = Deno.cwd();
  const env = Deno.env.toObject();
  const home = reasonixHome(env);
  if (positionals.length === 0) {
    try {
      const { value, source } = await effectiveCompactRatio(cwd, home, env);
      console.log(`compact_ratio = ${value.toFixed(2)} (from ${source})`);
      return EXIT_OK;
    } catch (error) {
      return reportConfigError(error);
    }
  }
  const value = Number(positionals[0]);
  if (positionals.length > 1 || !Number.isFinite(value) || value < 0.3 || value > 0.85) {
    console.error(
      `reasonix config compact-ratio: "${
        positionals.join(" ")
      }" is not a ratio between 0.30 and 0.85\n` +
        "fix: pass one number, e.g. reasonix config compact-ratio 0.70",
    );
    return EXIT_USAGE;
  }
  const path = opts.local ? join(cwd, "reasonix.toml") : join(home, "config.toml");
  try {
    // Strict UTF-8 and a clear error for a directory: the file is rewritten below.
    const text = await readConfigText(path) ?? "";
    await writeTomlFile(
      path,
      setTomlValue(text, {
        table: "agent",
        key: "compact_ratio",
        literal: String(value),
        file: path,
      }),
    );
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(error);
    console.error(
      `reasonix config compact-ratio: could not update ${path}: ${(error as Error).message}\n` +
        `fix: make ${path} a writable file, or set [agent].compact_ratio there by hand`,
    );
    return EXIT_USAGE;
  }
  console.log(`wrote compact_ratio = ${value.toFixed(2)} to ${path}`);
  let effective: { value: number; source: string };
  try {
    effective = await effectiveCompactRatio(cwd, home, env);
  } catch (error) {
    // The value is written, but a run would stop on this error, so it is not a success.
    console.error("note: the configuration does not load, so reasonix run would stop here:");
    return reportConfigError(error);
  }
  if (effective.source !== path) {
    console.log(
      `note: ${effective.source} sets ${effective.value.toFixed(2)}, which takes precedence here`,
    );
  }
  return EXIT_OK;
}

/** Prints a configuration error as `reasonix run` does (exit 2); rethrows anything else. */
function reportConfigError(error: unknown): number {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`reasonix: ${error.message}`);
  return EXIT_USAGE;
}
