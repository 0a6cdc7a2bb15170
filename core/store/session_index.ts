/**
 * The listing index of a sessions directory: per transcript, what `sessions list` shows
 * (metadata, title, message count) and how far the file was read for it. It lives beside the
 * sessions (`.index/sessions.json`) and is only a cache: an entry is trusted while the file's
 * size and modification time are the ones it recorded; a file that grew is read from where the
 * entry stopped, anything else is read again in full. A missing, unreadable or other-version
 * index is rebuilt. Writes go to a temporary file renamed over the index, so a crash or a
 * second process leaves either version whole; a lost update only costs a re-read.
 *
 * @module
 */
import { join } from "node:path";
import type { SessionMeta } from "./records.ts";
import { messageOf, parseLine, readBytes, scanLines, sessionOf } from "./transcript_scan.ts";
import { userText } from "./user_text.ts";

/** Format version of the listing index; another version is rebuilt. */
export const SESSION_INDEX_VERSION = 1;

/** What the listing knows about one transcript file. */
export interface SessionEntry {
  /** The session record; null when the file (so far) is not a transcript. */
  meta: SessionMeta | null;
  version: number;
  /** The first real user request, shortened; "" until there is one. */
  title: string;
  titled: boolean;
  /** Messages as the reader counts them. */
  messages: number;
  /** Bytes read (up to the last whole line). */
  read: number;
  /** The first line, to tell an appended file from a replaced one. */
  head: string;
  /** File size and modification time (ms) when read. */
  size: number;
  mtime: number;
}

/** Where the indexes of a sessions directory live. */
export function indexDir(dir: string): string {
  return join(dir, ".index");
}

function indexPath(dir: string): string {
  return join(indexDir(dir), "sessions.json");
}

function isEntry(v: unknown): v is SessionEntry {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  return (e.meta === null || typeof e.meta === "object") && typeof e.title === "string" &&
    typeof e.titled === "boolean" && Number.isInteger(e.messages) && Number.isInteger(e.read) &&
    typeof e.head === "string" && Number.isInteger(e.size) && typeof e.mtime === "number" &&
    Number.isInteger(e.version);
}

/** Reads the listing index; empty when missing, damaged or of another version. */
export async function loadSessionIndex(dir: string): Promise<Map<string, SessionEntry>> {
  const out = new Map<string, SessionEntry>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(await Deno.readTextFile(indexPath(dir)));
  } catch {
    return out;
  }
  const record = parsed as { v?: unknown; entries?: unknown };
  if (
    record?.v !== SESSION_INDEX_VERSION || typeof record.entries !== "object" || !record.entries
  ) {
    return out;
  }
  for (const [name, entry] of Object.entries(record.entries)) {
    if (isEntry(entry)) out.set(name, entry);
  }
  return out;
}

/** The index files of a sessions directory, which {@linkcode reserveIndexWrites} opens. */
const INDEX_FILES: readonly string[] = ["sessions.json", "history.bin"];

/** Index files opened for writing before the process gave up its write permission. */
const reserved = new Map<string, Deno.FsFile>();

/**
 * Opens the index files of the sessions directory `dir` for writing (creating the folder and
 * empty files as needed), for a process about to give up Deno's write permission (read-only
 * mode): Deno checks the permission when a file is opened, and a permission cannot be granted
 * again once revoked, not even for one folder. {@linkcode writeAtomic} then writes these files
 * through the open handles, in place. Does nothing where writing is already refused.
 */
export async function reserveIndexWrites(dir: string): Promise<void> {
  try {
    await Deno.mkdir(indexDir(dir), { recursive: true, mode: 0o700 });
    for (const name of INDEX_FILES) {
      const path = join(indexDir(dir), name);
      if (reserved.has(path)) continue;
      reserved.set(
        path,
        await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 }),
      );
    }
  } catch {
    // A read-only disk: the indexes are caches, the next process builds them.
  }
}

function mayWrite(path: string): boolean {
  return Deno.permissions.querySync({ name: "write", path }).state === "granted";
}

/** Rewrites a reserved file in place: truncated first, so a reader sees a prefix at worst. */
async function writeReserved(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  await file.truncate(0);
  await file.seek(0, Deno.SeekMode.Start);
  for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
}

/**
 * Creates the index folder of `dir` unless the process may no longer write (then the folder
 * was made by {@linkcode reserveIndexWrites}, or the write fails as it should).
 */
export async function ensureIndexDir(dir: string): Promise<void> {
  if (!mayWrite(indexDir(dir))) return;
  await Deno.mkdir(indexDir(dir), { recursive: true, mode: 0o700 });
}

/**
 * Writes `bytes` to `path` through a temporary file renamed over it: readers see the old or
 * the new content, never a part. After the write permission is gone, a file reserved with
 * {@linkcode reserveIndexWrites} is rewritten in place instead: a reader may then see a part,
 * which every index rejects (the listing's JSON does not parse, the history index fails its
 * checksum) and rebuilds, and a writer that renamed a new file over it meanwhile keeps its
 * version (the handle writes to the replaced file).
 */
export async function writeAtomic(path: string, bytes: Uint8Array | string): Promise<void> {
  const file = reserved.get(path);
  if (file && !mayWrite(path)) {
    return await writeReserved(
      file,
      typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes,
    );
  }
  const temp = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    if (typeof bytes === "string") await Deno.writeTextFile(temp, bytes, { mode: 0o600 });
    else await Deno.writeFile(temp, bytes, { mode: 0o600 });
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

/**
 * Saves `updated` entries into the listing index, merged with what another process may have
 * written meanwhile; entries of files not in `present` are dropped. Failures are ignored: the
 * index is a cache.
 */
export async function saveSessionIndex(
  dir: string,
  updated: ReadonlyMap<string, SessionEntry>,
  present: ReadonlySet<string>,
): Promise<void> {
  try {
    const merged = await loadSessionIndex(dir);
    for (const [name, entry] of updated) merged.set(name, entry);
    const entries: Record<string, SessionEntry> = {};
    for (const [name, entry] of merged) if (present.has(name)) entries[name] = entry;
    await ensureIndexDir(dir);
    await writeAtomic(indexPath(dir), JSON.stringify({ v: SESSION_INDEX_VERSION, entries }));
  } catch {
    // A read-only or full disk: listing still works, it just reads the files again.
  }
}

function emptyEntry(): SessionEntry {
  return {
    meta: null,
    version: 0,
    title: "",
    titled: false,
    messages: 0,
    read: 0,
    head: "",
    size: 0,
    mtime: 0,
  };
}

/** Folds the whole lines of `bytes` (starting at byte `base` of the file) into `entry`. */
function fold(entry: SessionEntry, bytes: Uint8Array, base: number): void {
  entry.read = scanLines(bytes, base, (line, start) => {
    if (start === 0) entry.head = line;
    const record = parseLine(line);
    if (!entry.meta) {
      const session = sessionOf(record);
      if (session) {
        entry.meta = session.meta;
        entry.version = session.version;
        return;
      }
    }
    const message = messageOf(record, entry.messages);
    if (!message) return;
    entry.messages++;
    if (!entry.titled && message.role === "user") {
      entry.titled = true;
      entry.title = userText(message.content).replace(/\s+/g, " ").slice(0, 80);
    }
  });
}

/**
 * The entry of the transcript at `path` with the given size and mtime: `known` when it is
 * current, extended by the appended bytes when the file only grew, read afresh otherwise.
 */
export async function refreshEntry(
  path: string,
  stat: { size: number; mtime: number },
  known: SessionEntry | undefined,
): Promise<SessionEntry> {
  if (known && known.size === stat.size && known.mtime === stat.mtime) return known;
  // Grown past what was seen, with the same first line: appended to. Same size with another
  // mtime is a rewrite (or a touch), and is read afresh.
  if (known && known.read > 0 && known.head && stat.size > known.size) {
    const headBytes = new TextEncoder().encode(known.head + "\n");
    const [head, last] = await Promise.all([
      readBytes(path, 0, headBytes.length),
      readBytes(path, known.read - 1, known.read),
    ]);
    if (
      last[0] === 0x0a && head.length === headBytes.length &&
      head.every((b, i) => b === headBytes[i])
    ) {
      const entry = { ...known };
      fold(entry, await readBytes(path, known.read), known.read);
      return { ...entry, size: stat.size, mtime: stat.mtime };
    }
  }
  const entry = emptyEntry();
  fold(entry, await readBytes(path), 0);
  return { ...entry, size: stat.size, mtime: stat.mtime };
}
