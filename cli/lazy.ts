/**
 * On-demand modules. `deno run` loads the module graph of every `import()` whose specifier is
 * a string literal before the program starts, so a literal import of the interactive UI or
 * the MCP SDK would make `reasonix --version` and `reasonix run` pay for them. These modules
 * are imported through computed specifiers instead, and `deno compile` includes them
 * explicitly (see `cli/release/compile.ts`).
 *
 * @module
 */

/** Every lazily imported module, relative to the repository root. */
export const LAZY_MODULES = [
  "cli/app.ts",
  "cli/run.ts",
  "cli/interactive.ts",
  "cli/sessions_cmd.ts",
  "cli/config_cmd.ts",
  "cli/mcp.ts",
  "plugins/mcp/host.ts",
] as const;

/** One of {@link LAZY_MODULES}. */
export type LazyModule = typeof LAZY_MODULES[number];

/** Imports a lazy module by its path from the repository root. */
export function lazyImport<T>(module: LazyModule): Promise<T> {
  const url = new URL(`../${module}`, import.meta.url);
  return import(url.href) as Promise<T>;
}
