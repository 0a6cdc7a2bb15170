/**
 * On-demand modules. `deno run` loads the module graph of every `import()` whose specifier is
 * a string literal before the program starts, so a literal import of the interactive UI or
 * the MCP SDK would make `reasonix --version` and `reasonix run` pay for them. These modules
 * are imported through computed specifiers instead; `deno compile` and the bundle build
 * (`cli/release/`) include them explicitly.
 *
 * @module
 */

/** Every lazily imported module, relative to the repository root. */
export const LAZY_MODULES = [
  "cli/app.ts",
  "cli/commands/fast_run.ts",
  "cli/run.ts",
  "cli/interactive.ts",
  "cli/sessions_cmd.ts",
  "cli/subagent_cmd.ts",
  "cli/config_cmd.ts",
  "cli/mcp.ts",
  "cli/trust.ts",
  "cli/completions.ts",
  "cli/doctor/command.ts",
  "cli/setup/command.ts",
  "cli/serve/command.ts",
  "cli/acp/mod.ts",
  "cli/remote_cmd.ts",
  "plugins/mcp/host.ts",
] as const;

/** One of {@link LAZY_MODULES}. */
export type LazyModule = typeof LAZY_MODULES[number];

/**
 * Where the lazy modules live when the program runs from a bundle. Kept on `globalThis`
 * because a bundle may hold more than one copy of this module, and every copy must agree.
 */
const LOCATION = Symbol.for("reasonix.lazyModules");

interface Location {
  root: URL;
  extension: ".ts" | ".js";
}

/**
 * Tells where the lazy modules went in a build: `root` mirrors the repository root, `ext` is
 * their extension there (`.js` in a bundle).
 */
export function setLazyRoot(root: URL, extension: ".ts" | ".js"): void {
  (globalThis as Record<symbol, unknown>)[LOCATION] = { root, extension } satisfies Location;
}

/** Imports a lazy module by its path from the repository root. */
export function lazyImport<T>(module: LazyModule): Promise<T> {
  // Source layout by default: this file is <root>/cli/lazy.ts.
  const where = (globalThis as Record<symbol, Location | undefined>)[LOCATION] ??
    { root: new URL("../", import.meta.url), extension: ".ts" };
  const url = new URL(module.replace(/\.ts$/, where.extension), where.root);
  return import(url.href) as Promise<T>;
}
