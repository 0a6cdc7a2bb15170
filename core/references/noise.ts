/**
 * Directory names that are never useful in a reference listing or a completion list: version
 * control internals, dependency trees and tool caches.
 *
 * @module
 */

/** Names skipped when listing a directory. */
export const NOISE_NAMES: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  ".jj",
  "node_modules",
  "bower_components",
  "__pycache__",
  ".venv",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".tox",
  ".next",
  ".nuxt",
  ".turbo",
  ".parcel-cache",
  ".gradle",
  ".idea",
  ".DS_Store",
]);

/** Whether an entry name is noise. */
export function isNoise(name: string): boolean {
  return NOISE_NAMES.has(name);
}
