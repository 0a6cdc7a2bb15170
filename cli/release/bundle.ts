/**
 * `deno task bundle`: builds the program as plain JavaScript into `dist/bundle/`, the form
 * `deno task install` puts on the PATH. Running from source, Deno resolves and loads some 160
 * TypeScript modules at every start; the bundle loads a handful of files, which takes tens of
 * milliseconds off every `reasonix run` (`deno task bench` measures both).
 *
 * Two passes: the entry alone, so `--version` loads one tiny file, then every lazily imported
 * module (`cli/lazy.ts`) with code splitting, mirroring the repository layout so the entry
 * finds them.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LAZY_MODULES } from "../lazy.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Where `deno task bundle` writes, relative to the repository root. */
export const BUNDLE_DIR = "dist/bundle";

/** The flags `deno task install` gives the launcher (the same set as `deno task reasonix`). */
export function installArgs(dir: string, name: string, runFlags: readonly string[]): string[] {
  return ["install", "-g", "-f", "-n", name, ...runFlags, bundleEntry(dir)];
}

/** The bundled entry point inside a bundle directory. */
export function bundleEntry(dir: string): string {
  return join(dir, "cli", "main.js");
}

/**
 * Imports no build may resolve: ink loads React DevTools only when `DEV=true`, and the package
 * is not a dependency.
 */
const EXTERNAL = ["react-devtools-core"];

async function bundle(args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "deno", "--config", join(ROOT, "deno.json"), ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr).split("\n")
      .filter((line) => !line.includes("bundler warning") && !/^\s+at /.test(line)).join("\n");
    throw new Error(`deno bundle failed:\n${text.trim()}`);
  }
}

/** Builds the bundle into `dir` (replacing what was there). */
export async function buildBundle(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const externals = EXTERNAL.flatMap((name) => ["--external", name]);
  await bundle(["--output", bundleEntry(dir), join(ROOT, "cli/main.ts")]);
  await bundle([
    "--code-splitting",
    ...externals,
    "--outdir",
    dir,
    ...LAZY_MODULES.map((module) => join(ROOT, module)),
  ]);
  // `deno install` copies the nearest deno.json for the launcher to use. The repository's would
  // make every start load its import map and lockfile, which the bundle does not need.
  await Deno.writeTextFile(join(dir, "deno.json"), '{ "lock": false }\n');
  for (const module of LAZY_MODULES) {
    const built = join(dir, module.replace(/\.ts$/, ".js"));
    try {
      await Deno.stat(built);
    } catch {
      throw new Error(`deno bundle did not write ${built}; the bundle layout changed`);
    }
  }
}

if (import.meta.main) {
  const dir = join(ROOT, BUNDLE_DIR);
  await buildBundle(dir);
  console.log(`bundled into ${dir}`);
}
