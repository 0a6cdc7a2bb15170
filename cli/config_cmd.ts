/**
 * `reasonix config compact-ratio [--local] [VALUE]`: shows or sets the compaction trigger
 * ratio. The project file beats the user file; the effective value is always shown.
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parse } from "smol-toml";
import { reasonixHome } from "../core/config/mod.ts";
import { setTomlValue, writeTomlFile } from "../core/config/toml_edit.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";

const USAGE = `Usage: reasonix config compact-ratio [--local] [VALUE]

Shows the effective [agent].compact_ratio, or sets it. Context maintenance starts when a request
reaches context_window × compact_ratio tokens. Lower compacts earlier (more summaries, less
prefix-cache reuse). Range 0.30–0.85; presets 0.70 (early), 0.80 (default), 0.85 (late).

  --local   write the project's ./reasonix.toml instead of the user config
`;

/** Default ratio when no file sets one. */
const DEFAULT_RATIO = 0.8;

async function ratioIn(path: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
  try {
    const value = (parse(text) as { agent?: { compact_ratio?: unknown } }).agent?.compact_ratio;
    return typeof value === "number" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Where the effective ratio comes from. */
export async function effectiveCompactRatio(
  cwd: string,
  home: string,
): Promise<{ value: number; source: string }> {
  const project = join(cwd, "reasonix.toml");
  const user = join(home, "config.toml");
  const fromProject = await ratioIn(project);
  if (fromProject !== undefined) return { value: fromProject, source: project };
  const fromUser = await ratioIn(user);
  if (fromUser !== undefined) return { value: fromUser, source: user };
  return { value: DEFAULT_RATIO, source: "built-in default" };
}

/** Runs `reasonix config …` and returns the exit code. */
export async function configCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "compact-ratio") {
    console.error(`reasonix config: unknown setting "${sub ?? ""}"\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  let values: { local?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { local: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    console.error(`reasonix config compact-ratio: ${(error as Error).message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (values.help) {
    console.log(USAGE);
    return EXIT_OK;
  }
  const cwd = Deno.cwd();
  const home = reasonixHome(Deno.env.toObject());
  if (positionals.length === 0) {
    const { value, source } = await effectiveCompactRatio(cwd, home);
    console.log(`compact_ratio = ${value.toFixed(2)} (from ${source})`);
    return EXIT_OK;
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
  const path = values.local ? join(cwd, "reasonix.toml") : join(home, "config.toml");
  let text = "";
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  try {
    await writeTomlFile(path, setTomlValue(text, "agent", "compact_ratio", String(value)));
  } catch (error) {
    console.error(
      `reasonix config compact-ratio: could not update ${path}: ${(error as Error).message}\n` +
        "fix: repair the file's TOML (reasonix run names the line) and try again",
    );
    return EXIT_USAGE;
  }
  const effective = await effectiveCompactRatio(cwd, home);
  console.log(`wrote compact_ratio = ${value.toFixed(2)} to ${path}`);
  if (effective.source !== path) {
    console.log(
      `note: ${effective.source} sets ${effective.value.toFixed(2)}, which takes precedence here`,
    );
  }
  return EXIT_OK;
}
