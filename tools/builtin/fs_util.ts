/**
 * File-system helpers shared by the built-in tools: atomic writes, readable error messages,
 * sizes and executable lookup.
 *
 * @module
 */
import { basename, delimiter, dirname, isAbsolute, join, resolve } from "node:path";

/** Largest file the text tools load whole. Bigger files need windows or the shell. */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** Options of {@linkcode atomicWrite}. */
export interface AtomicWriteOptions {
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
  const temp = join(dirname(path), `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  let file: Deno.FsFile | undefined;
  try {
    file = await Deno.open(temp, {
      write: true,
      createNew: true,
      mode: opts.mode ?? opts.createMode ?? 0o666,
    });
    let offset = 0;
    while (offset < data.length) offset += await file.write(data.subarray(offset));
    await file.syncData();
    // The umask narrows the creation mode; an existing file's mode is restored exactly.
    if (opts.mode !== undefined && Deno.build.os !== "windows") await Deno.chmod(temp, opts.mode);
    file.close();
    file = undefined;
    await Deno.rename(temp, path);
  } catch (error) {
    file?.close();
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

/** Options of {@linkcode replaceFile}. */
export interface ReplaceFileOptions {
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
  const target = await writeTarget(path);
  let mode: number | undefined;
  try {
    mode = permissionBits(await Deno.stat(target));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (opts.makeParents) await Deno.mkdir(dirname(target), { recursive: true });
  await atomicWrite(target, data, mode === undefined ? { createMode: opts.newFileMode } : { mode });
}

/** Permission bits of a stat result, or undefined where the platform has none. */
export function permissionBits(info: Deno.FileInfo): number | undefined {
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
export async function writeTarget(path: string): Promise<string> {
  let current = path;
  for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(current);
    } catch {
      return current;
    }
    if (!info.isSymlink) return hop === 0 ? current : await Deno.realPath(current);
    try {
      // The link's directory may itself be reached through links; `..` in the target is
      // taken from its real location, as the kernel does.
      current = resolve(await Deno.realPath(dirname(current)), await Deno.readLink(current));
    } catch {
      return path;
    }
  }
  return path;
}

/** What kind of non-regular file `info` describes, for messages. */
export function specialFileKind(info: Deno.FileInfo): string {
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
  info: Deno.FileInfo,
): Promise<string | undefined> {
  const bits = permissionBits(info);
  if (bits !== undefined && (bits & 0o222) === 0) {
    return `it is read-only (mode ${(bits & 0o777).toString(8).padStart(3, "0")})`;
  }
  try {
    (await Deno.open(path, { write: true })).close();
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied) return "it is not writable by this user";
  }
  return undefined;
}

/** Whether a UTF-16 code unit is the high (first) half of a surrogate pair. */
function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The first `max` UTF-16 code units of `text`, one fewer when the cut would split a
 * surrogate pair, so a cut never leaves half a character.
 */
export function sliceChars(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max);
}

/** Number of characters (code points) in `text`. */
export function charCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if (isHighSurrogate(text.charCodeAt(i))) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * `text` cut to at most `max` UTF-16 units without splitting a character, with a
 * `[... N more characters]` marker when something was cut.
 */
export function clipLine(text: string, max: number): string {
  if (text.length <= max) return text;
  const kept = sliceChars(text, max);
  return `${kept} [... ${charCount(text.slice(kept.length))} more characters]`;
}

/** `Deno.stat`, or undefined when nothing exists at `path`. Other errors propagate. */
export async function statOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** `lstat` (the link itself, not its target), or undefined when nothing is there. */
export async function lstatOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** A short description of a file-system error for a tool result. */
export function fsErrorMessage(error: unknown, shown: string): string {
  if (error instanceof Deno.errors.NotFound) return `${shown} does not exist`;
  if (error instanceof Deno.errors.PermissionDenied) return `permission denied for ${shown}`;
  if (error instanceof Deno.errors.IsADirectory) return `${shown} is a directory`;
  if (error instanceof Deno.errors.NotADirectory) {
    return `a component of ${shown} is not a directory`;
  }
  if (error instanceof Deno.errors.AlreadyExists) return `${shown} already exists`;
  return `${shown}: ${error instanceof Error ? error.message : String(error)}`;
}

/** A byte count for people: `512 B`, `1.5 KiB`, `3.2 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 100 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/**
 * The full path of an executable found on `PATH`, or undefined. Relative entries (`.`,
 * `node_modules/.bin`) are skipped: they name a directory the model's commands can write.
 */
export async function findExecutable(name: string): Promise<string | undefined> {
  const path = Deno.env.get("PATH") ?? "";
  const windows = Deno.build.os === "windows";
  const suffixes = windows ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of path.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    for (const suffix of suffixes) {
      const candidate = join(dir, name + suffix);
      try {
        const info = await Deno.stat(candidate);
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
export async function sortNewestFirst<T>(items: T[], pathOf: (item: T) => string): Promise<T[]> {
  const times = new Map<T, number>();
  const batch = 64;
  for (let i = 0; i < items.length; i += batch) {
    await Promise.all(
      items.slice(i, i + batch).map(async (item) => {
        const info = await Deno.stat(pathOf(item)).catch(() => undefined);
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
