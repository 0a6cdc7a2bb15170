/**
 * Path completion for `@` references. It reads exactly one directory level per call, so typing
 * in a huge tree never walks it.
 *
 * @module
 */
import { resolve } from "node:path";
import { isNoise } from "./noise.ts";

/** One completion choice. */
export interface PathCompletion {
  /** The full reference text after `@`, e.g. `src/lib/`. */
  value: string;
  /** The entry name, with `/` for directories. */
  label: string;
  isDirectory: boolean;
}

/**
 * Completes `partial` (the text after `@`): lists the directory named by everything up to its
 * last `/` and keeps entries whose name starts with the rest (case-insensitive), sorted by name
 * ignoring case. Hidden entries
 * appear only when the typed name starts with `.`; noise such as `.git` or `node_modules` only
 * when typed explicitly. Directories come first. An unreadable directory gives no choices.
 */
export async function completeReferencePath(
  partial: string,
  opts: { root: string; limit?: number; signal?: AbortSignal },
): Promise<PathCompletion[]> {
  const cut = partial.lastIndexOf("/");
  const dirPart = cut >= 0 ? partial.slice(0, cut + 1) : "";
  const prefix = (cut >= 0 ? partial.slice(cut + 1) : partial).toLowerCase();
  const dir = resolve(opts.root, dirPart || ".");
  const found: PathCompletion[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      opts.signal?.throwIfAborted();
      const lower = entry.name.toLowerCase();
      if (!lower.startsWith(prefix)) continue;
      if (entry.name.startsWith(".") && !prefix.startsWith(".")) continue;
      if (isNoise(entry.name) && lower !== prefix) continue;
      let isDirectory = entry.isDirectory;
      if (entry.isSymlink) {
        isDirectory = await Deno.stat(resolve(dir, entry.name)).then(
          (s) => s.isDirectory,
          () => false,
        );
      }
      const label = `${entry.name}${isDirectory ? "/" : ""}`;
      found.push({ value: `${dirPart}${label}`, label, isDirectory });
    }
  } catch (error) {
    if (opts.signal?.aborted) throw error;
    return [];
  }
  const key = (c: PathCompletion) => `${c.isDirectory ? 0 : 1}${c.label.toLowerCase()}\0${c.label}`;
  found.sort((a, b) => key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  return found.slice(0, opts.limit ?? 50);
}
