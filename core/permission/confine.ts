/**
 * File-writer confinement: canonical path resolution, the writable roots of a session and
 * `forbid_read`.
 *
 * Paths are compared only after resolving them the way the kernel will: every existing
 * component is followed through symlinks (dangling ones included), so `..` traversal and a
 * symlink inside the workspace that points outside cannot launder a write.
 *
 * @module
 */
import { dirname, isAbsolute, join, parse, resolve, sep } from "node:path";
import { isWithin } from "../../tools/paths.ts";

const MAX_LINKS = 40;

/**
 * Resolves `path` (absolute, or relative to `base`) to where a write would land: existing
 * components are followed through symlinks, missing ones are appended as written.
 */
export async function canonicalPath(path: string, base?: string): Promise<string> {
  // One implementation for both: the walk is a handful of lstat calls.
  return await Promise.resolve().then(() => canonicalPathSync(path, base));
}

/** {@linkcode canonicalPath}, synchronously (for the configuration loader). */
export function canonicalPathSync(path: string, base?: string): string {
  const absolute = resolve(base ?? "/", path);
  if (Deno.build.os === "windows") return canonicalWindows(absolute);
  const root = parse(absolute).root;
  let resolved = root;
  let parts = absolute.slice(root.length).split(sep);
  let links = 0;
  while (parts.length > 0) {
    const name = parts.shift()!;
    if (name === "" || name === ".") continue;
    if (name === "..") {
      resolved = dirname(resolved);
      continue;
    }
    const next = join(resolved, name);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(next);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        // Nothing further exists, so nothing further can be a link; `..` stays lexical.
        return resolve(next, ...parts);
      }
      throw error;
    }
    if (info.isSymlink) {
      if (++links > MAX_LINKS) throw new Deno.errors.FilesystemLoop(`too many links in ${path}`);
      const target = Deno.readLinkSync(next);
      parts = [...target.split(sep), ...parts];
      if (isAbsolute(target)) resolved = parse(target).root;
      continue;
    }
    resolved = next;
  }
  return resolved;
}

/** Windows: the deepest existing ancestor through `realPath`, then the missing rest. */
function canonicalWindows(absolute: string): string {
  const rest: string[] = [];
  let current = absolute;
  while (true) {
    try {
      return join(Deno.realPathSync(current), ...rest.reverse());
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      const parent = dirname(current);
      if (parent === current) return absolute;
      rest.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
      current = parent;
    }
  }
}

/** Where writes may land, what may not be read, and what the session granted. */
export class WriteScope {
  readonly #fixed: string[];
  readonly #forbidRead: string[];
  readonly #session = new Set<string>();
  readonly #once = new Map<string, number>();

  /**
   * @param roots canonical writable roots: the workspace, the session temp dir, `allow_write`
   * @param forbidRead canonical paths that may never be read
   */
  constructor(roots: readonly string[], forbidRead: readonly string[] = []) {
    this.#fixed = [...new Set(roots)];
    this.#forbidRead = [...new Set(forbidRead)];
  }

  /** Configured roots plus directories granted for this session. */
  roots(): string[] {
    return [...this.#fixed, ...this.#session];
  }

  /** Paths in `forbid_read`. */
  forbidden(): readonly string[] {
    return this.#forbidRead;
  }

  /** Whether a canonical path lies inside a writable root. */
  allowsWrite(path: string): boolean {
    return this.roots().some((root) => isWithin(root, path));
  }

  /** Grants a canonical directory for the rest of the session (in memory only). */
  grantSession(dir: string): void {
    this.#session.add(dir);
  }

  /** Grants a canonical directory to the next command that asks for it. */
  grantOnce(dir: string): void {
    this.#once.set(dir, (this.#once.get(dir) ?? 0) + 1);
  }

  /** Consumes a one-time grant; true when there was one. */
  takeOnce(dir: string): boolean {
    const n = this.#once.get(dir) ?? 0;
    if (n === 0) return false;
    if (n === 1) this.#once.delete(dir);
    else this.#once.set(dir, n - 1);
    return true;
  }

  /** Drops one-time grants nobody used. */
  clearOnce(): void {
    this.#once.clear();
  }

  /**
   * The `forbid_read` entry that blocks access to `path`: one containing it, or — when
   * `recursive` (a directory search) — one inside it.
   */
  forbiddenBy(path: string, recursive: boolean): string | undefined {
    return this.#forbidRead.find((f) => isWithin(f, path) || (recursive && isWithin(path, f)));
  }
}
