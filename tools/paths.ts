/**
 * Resolves the path arguments of tool calls. Tools accept paths relative to the workspace
 * root or absolute; confinement is decided centrally from each tool's `access()`, not here.
 *
 * @module
 */
import { isAbsolute, join, normalize, relative, resolve, sep } from "node:path";

/**
 * Resolves a tool path argument: relative paths are joined with `root`, absolute paths are
 * kept. The result is normalized (no `.`/`..` segments, no trailing separator).
 */
export function resolveToolPath(root: string, path: string): string {
  const joined = isAbsolute(path) ? normalize(path) : join(root, path);
  return resolve(joined);
}

/**
 * The path to show the model for an absolute path: relative to `root` when inside it
 * (`.` for the root itself), absolute otherwise. Separators are always `/`.
 */
export function displayPath(root: string, absolute: string): string {
  const rel = relative(root, absolute);
  if (rel === "") return ".";
  if (escapes(rel)) return toPosix(absolute);
  return toPosix(rel);
}

/** Whether `path` is `dir` itself or inside it. Both must be absolute and normalized. */
export function isWithin(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || !escapes(rel);
}

/** Whether a `relative()` result leaves its base (`..`, `../x`, or another drive). */
function escapes(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

/** Converts platform separators to `/`. */
export function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}
