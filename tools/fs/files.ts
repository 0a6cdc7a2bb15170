/**
 * File helpers shared by the built-in tools, the configuration writers and the memory store:
 * atomic, link-keeping writes, readable error messages and executable lookup. Each runs
 * against a {@linkcode Workspace} (default: this machine's), so the tools can use them over
 * any implementation while local callers (configuration files) need not pass one.
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { localWorkspace } from "../workspace/local.ts";
import { fsErrorCode, isNotFound } from "../workspace/errors.ts";
import type { FileHandle, FileInfo, Workspace } from "../workspace/types.ts";

/** Largest file the text tools load whole. Bigger files need windows or the shell. */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** Where a helper runs: a workspace (default this machine's) and a signal. */
export interface OnWorkspace {
  /** Default {@linkcode localWorkspace}. */
  workspace?: Workspace;
  /** Stops the file operations. */
  signal?: AbortSignal;
}

/** Options of {@linkcode atomicWrite}. */
export interface AtomicWriteOptions extends OnWorkspace {
  /** Permission bits to give the file (e.g. the mode of the file being replaced). */
  mode?: number;
  /** Without `mode`: the mode a new file is created with, narrowed by the umask. */
  createMode?: number;
}

/**
 * Writes `data` to `path` through a temporary file in the same directory and a rename, so
 * readers never see a half-written file and a failed write leaves the old file intact.
 */
export async function atomicWrite(
  path: string,
  data: Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const ws = opts.workspace ?? localWorkspace();
  const signal = opts.signal;
  const temp = join(dirname(path), `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  let file: FileHandle | undefined;
  try {
    file = await ws.open(temp, {
      write: true,
      createNew: true,
      mode: opts.mode ?? opts.createMode ?? 0o666,
      signal,
    });
    let offset = 0;
    while (offset < data.length) offset += await file.write(data.subarray(offset));
    await file.syncData();
    // The umask narrows the creation mode; an existing file's mode is restored exactly.
    if (opts.mode !== undefined && ws.os !== "windows") await ws.chmod(temp, opts.mode);
    await file.close();
    file = undefined;
    await ws.rename(temp, path);
  } catch (error) {
    await file?.close().catch(() => {});
    await ws.remove(temp).catch(() => {});
    throw error;
  }
}

/** Options of {@linkcode replaceFile}. */
export interface ReplaceFileOptions extends OnWorkspace {
  /** The mode a new file is created with, narrowed by the umask. Default 0o666. */
  newFileMode?: number;
  /** Create the file's folder when it is missing. */
  makeParents?: boolean;
}

/**
 * Replaces the file at `path` with `data` atomically ({@linkcode atomicWrite}). Through a
 * symlink the linked file is replaced and the link kept ({@linkcode writeTarget}); an existing
 * file keeps its permission bits. A link loop is an error, never a replaced link.
 */
export async function replaceFile(
  path: string,
  data: Uint8Array,
  opts: ReplaceFileOptions = {},
): Promise<void> {
  const ws = opts.workspace ?? localWorkspace();
  const on = { workspace: ws, signal: opts.signal };
  const target = await writeTarget(path, on);
  let mode: number | undefined;
  try {
    mode = permissionBits(await ws.stat(target, on));
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (opts.makeParents) await ws.mkdir(dirname(target), { recursive: true, signal: opts.signal });
  await atomicWrite(
    target,
    data,
    mode === undefined ? { ...on, createMode: opts.newFileMode } : { ...on, mode },
  );
}

/** Permission bits of a stat result, or undefined where the platform has none. */
export function permissionBits(info: FileInfo): number | undefined {
  return info.mode === null ? undefined : info.mode & 0o7777;
}

/** Symlinks followed before a chain counts as a loop (the kernel's limit). */
const MAX_SYMLINK_HOPS = 40;

/**
 * The path a write should replace: the final target when `path` is a symlink, so writing
 * through a link updates the linked file instead of replacing the link. A dangling link
 * resolves to the missing file it names, which is where the permission layer (and the
 * kernel) place the write; a link loop resolves to `path` itself, so the caller's `stat`
 * reports the loop.
 */
export async function writeTarget(path: string, opts: OnWorkspace = {}): Promise<string> {
  const ws = opts.workspace ?? localWorkspace();
  let current = path;
  for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
    let info: FileInfo;
    try {
      info = await ws.lstat(current, opts);
    } catch {
      return current;
    }
    if (!info.isSymlink) return hop === 0 ? current : await ws.realPath(current, opts);
    try {
      // The link's directory may itself be reached through links; `..` in the target is
      // taken from its real location, as the kernel does.
      current = resolve(await ws.realPath(dirname(current), opts), await ws.readLink(current));
    } catch {
      return path;
    }
  }
  return path;
}

/** What kind of non-regular file `info` describes, for messages. */
export function specialFileKind(info: FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isFifo) return "a FIFO (named pipe)";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  return "not a regular file";
}

/**
 * Why the existing regular file `path` must not be replaced, or undefined when it may be.
 * An atomic write renames a new file over the old one, which the directory's permissions
 * allow even when the file itself is read-only; this check keeps a read-only file (no write
 * bit at all, or not writable by this user) read-only. Opening for writing neither creates
 * nor truncates anything.
 */
export async function readOnlyReason(
  path: string,
  info: FileInfo,
  opts: OnWorkspace = {},
): Promise<string | undefined> {
  const ws = opts.workspace ?? localWorkspace();
  const bits = permissionBits(info);
  if (bits !== undefined && (bits & 0o222) === 0) {
    return `it is read-only (mode ${(bits & 0o777).toString(8).padStart(3, "0")})`;
  }
  try {
    await (await ws.open(path, { write: true, signal: opts.signal })).close();
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === "EACCES" || code === "EPERM") return "it is not writable by this user";
  }
  return undefined;
}

/** `stat`, or undefined when nothing exists at `path`. Other errors propagate. */
export async function statOrUndefined(
  path: string,
  opts: OnWorkspace = {},
): Promise<FileInfo | undefined> {
  try {
    return await (opts.workspace ?? localWorkspace()).stat(path, opts);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** `lstat` (the link itself, not its target), or undefined when nothing is there. */
export async function lstatOrUndefined(
  path: string,
  opts: OnWorkspace = {},
): Promise<FileInfo | undefined> {
  try {
    return await (opts.workspace ?? localWorkspace()).lstat(path, opts);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** A short description of a file-system error for a tool result. */
export function fsErrorMessage(error: unknown, shown: string): string {
  switch (fsErrorCode(error)) {
    case "ENOENT":
      return `${shown} does not exist`;
    case "EACCES":
    case "EPERM":
      return `permission denied for ${shown}`;
    case "EISDIR":
      return `${shown} is a directory`;
    case "ENOTDIR":
      return `a component of ${shown} is not a directory`;
    case "EEXIST":
      return `${shown} already exists`;
  }
  return `${shown}: ${error instanceof Error ? error.message : String(error)}`;
}

/** The separator of `PATH` entries on a platform. */
export function pathListDelimiter(ws: Workspace): string {
  return ws.os === "windows" ? ";" : ":";
}

/** Options of {@linkcode findExecutable}. */
export interface FindExecutableOptions extends OnWorkspace {
  /** The `PATH` to search; default the workspace's. */
  path?: string;
}

/**
 * The full path of an executable found on `PATH`, or undefined. Relative entries (`.`,
 * `node_modules/.bin`) are skipped: they name a directory the model's commands can write.
 */
export async function findExecutable(
  name: string,
  opts: FindExecutableOptions = {},
): Promise<string | undefined> {
  const ws = opts.workspace ?? localWorkspace();
  const path = opts.path ?? ws.getEnv("PATH") ?? "";
  const windows = ws.os === "windows";
  const suffixes = windows ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of path.split(pathListDelimiter(ws))) {
    if (!dir || !isAbsolute(dir)) continue;
    for (const suffix of suffixes) {
      const candidate = join(dir, name + suffix);
      try {
        const info = await ws.stat(candidate, opts);
        if (info.isFile && (windows || info.mode === null || (info.mode & 0o111) !== 0)) {
          return candidate;
        }
      } catch {
        // Not in this directory.
      }
    }
  }
  return undefined;
}

/** Sorts items by the modification time of their file, newest first, then by path. */
export async function sortNewestFirst<T>(
  items: T[],
  pathOf: (item: T) => string,
  opts: OnWorkspace = {},
): Promise<T[]> {
  const ws = opts.workspace ?? localWorkspace();
  const times = new Map<T, number>();
  const batch = 64;
  for (let i = 0; i < items.length; i += batch) {
    await Promise.all(
      items.slice(i, i + batch).map(async (item) => {
        const info = await ws.stat(pathOf(item)).catch(() => undefined);
        times.set(item, info?.mtime?.getTime() ?? 0);
      }),
    );
  }
  return [...items].sort((a, b) => {
    const byTime = times.get(b)! - times.get(a)!;
    if (byTime !== 0) return byTime;
    const pa = pathOf(a);
    const pb = pathOf(b);
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  });
}
