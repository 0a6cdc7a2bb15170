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
import { FsError, fsErrorCode } from "../../tools/workspace/errors.ts";
import { localWorkspace } from "../../tools/workspace/local.ts";
import type { Workspace } from "../../tools/workspace/types.ts";

const MAX_LINKS = 40;

/** Options of {@linkcode canonicalPath}. */
export interface CanonicalPathOptions {
  /** What a relative `path` is relative to; default `/`. */
  base?: string;
  /** Whose file system the path is on; default this machine's. */
  workspace?: Workspace;
  signal?: AbortSignal;
}

/** Whether a failed `lstat` means nothing further exists along the path. */
function endsThePath(error: unknown): boolean {
  const code = fsErrorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * Resolves `path` (absolute, or relative to `base`) to where a write would land: existing
 * components are followed through symlinks, missing ones are appended as written. The
 * second argument is the base directory or the options.
 */
export async function canonicalPath(
  path: string,
  baseOrOptions?: string | CanonicalPathOptions,
): Promise<string> {
  const opts = typeof baseOrOptions === "string" ? { base: baseOrOptions } : baseOrOptions ?? {};
  const ws = opts.workspace ?? localWorkspace();
  const on = { signal: opts.signal };
  const absolute = resolve(opts.base ?? "/", path);
  // An existing path is its real path: one call instead of one per component. `resolve` has
  // already made `..` lexical, exactly as the walk below treats it.
  try {
    return await ws.realPath(absolute, on);
  } catch {
    // Something is missing (or loops): walk to find out what and where.
  }
  const walk = ws.os === "windows" ? walkWindows(absolute) : walkPosix(absolute, path);
  let step = walk.next();
  while (!step.done) step = walk.next(await answerAsync(ws, step.value, on));
  return step.value;
}

/**
 * {@linkcode canonicalPath} on this machine, synchronously. Only for the configuration
 * loader, which reads local files before any workspace exists.
 */
export function canonicalPathSync(path: string, base?: string): string {
  const absolute = resolve(base ?? "/", path);
  const walk = Deno.build.os === "windows" ? walkWindows(absolute) : walkPosix(absolute, path);
  let step = walk.next();
  while (!step.done) step = walk.next(answerSync(step.value));
  return step.value;
}

/**
 * What a path walk asks of the file system. The answer is whether the entry is a symlink
 * (`lstat`), its target (`readLink`) or its real path (`realPath`); `undefined` when nothing
 * exists there. The walks are written once and driven synchronously or through a workspace.
 */
interface WalkQuery {
  op: "lstat" | "readLink" | "realPath";
  path: string;
}

type WalkAnswer = boolean | string | undefined;

async function answerAsync(
  ws: Workspace,
  query: WalkQuery,
  on: { signal?: AbortSignal },
): Promise<WalkAnswer> {
  try {
    if (query.op === "lstat") return (await ws.lstat(query.path, on)).isSymlink;
    if (query.op === "readLink") return await ws.readLink(query.path, on);
    return await ws.realPath(query.path, on);
  } catch (error) {
    if (query.op !== "readLink" && missing(query, error)) return undefined;
    throw error;
  }
}

function answerSync(query: WalkQuery): WalkAnswer {
  try {
    if (query.op === "lstat") return Deno.lstatSync(query.path).isSymlink;
    if (query.op === "readLink") return Deno.readLinkSync(query.path);
    return Deno.realPathSync(query.path);
  } catch (error) {
    if (query.op !== "readLink" && missing(query, error)) return undefined;
    throw error;
  }
}

/** Whether a failed query means nothing exists there (for `lstat`, nothing further along). */
function missing(query: WalkQuery, error: unknown): boolean {
  return query.op === "lstat" ? endsThePath(error) : fsErrorCode(error) === "ENOENT";
}

/** POSIX: every component in turn, following symlinks; the missing rest is appended. */
function* walkPosix(absolute: string, shown: string): Generator<WalkQuery, string, WalkAnswer> {
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
    const isSymlink = yield { op: "lstat", path: next };
    // Nothing further exists, so nothing further can be a link; `..` stays lexical.
    if (isSymlink === undefined) return resolve(next, ...parts);
    if (isSymlink) {
      if (++links > MAX_LINKS) throw new FsError("ELOOP", `too many links in ${shown}`);
      const target = (yield { op: "readLink", path: next }) as string;
      parts = [...target.split(sep), ...parts];
      if (isAbsolute(target)) resolved = parse(target).root;
      continue;
    }
    resolved = next;
  }
  return resolved;
}

/** Windows: the deepest existing ancestor through `realPath`, then the missing rest. */
function* walkWindows(absolute: string): Generator<WalkQuery, string, WalkAnswer> {
  const rest: string[] = [];
  let current = absolute;
  while (true) {
    const real = yield { op: "realPath", path: current };
    if (typeof real === "string") return join(real, ...rest.reverse());
    const parent = dirname(current);
    if (parent === current) return absolute;
    rest.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
    current = parent;
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
