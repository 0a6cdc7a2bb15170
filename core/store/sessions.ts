/**
 * Where sessions live and how they are found again: one directory per workspace under the
 * Reasonix home, one transcript per session, named by its id.
 *
 * Lookups cost what they return: the newest session is chosen by modification time,
 * `--resume <id>` matches file names, and the listing reads the files of the page it shows
 * through the listing index beside them (`session_index.ts`), which remembers how far each
 * file was read.
 *
 * @module
 */
import { basename, join } from "node:path";
import { readHead } from "./transcript_scan.ts";
import { TranscriptError } from "./transcript.ts";
import type { SessionMeta } from "./records.ts";
import {
  loadSessionIndex,
  refreshEntry,
  saveSessionIndex,
  type SessionEntry,
} from "./session_index.ts";
export { userText } from "./user_text.ts";

/** A stable, readable directory name for a workspace: `<name>-<hash of the path>`. */
export async function projectKey(workspace: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(workspace));
  const hex = [...new Uint8Array(digest)].slice(0, 6).map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const name = basename(workspace).replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 40) || "root";
  return `${name}-${hex}`;
}

/** The sessions directory of a workspace. */
export async function sessionsDir(home: string, workspace: string): Promise<string> {
  return join(home, "sessions", await projectKey(workspace));
}

/** A session as listed by `reasonix sessions list`. */
export interface SessionSummary {
  meta: SessionMeta;
  path: string;
  /** Last modification time of the transcript. */
  updated: Date;
  messages: number;
  /** The first real user request, shortened. */
  title: string;
}

/** A transcript file of a sessions directory with its size and modification time. */
export interface TranscriptFile {
  /** File name, `<id>.jsonl`. */
  name: string;
  path: string;
  size: number;
  /** Modification time, ms since the epoch. */
  mtime: number;
}

/** The names of the transcript files in `dir`; none when it does not exist. */
async function transcriptNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".jsonl")) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw new TranscriptError(
      "transcript_read",
      `cannot list the sessions in ${dir}: ${(error as Error).message}. ` +
        "Something that is not a folder is in the way (see REASONIX_HOME); move it aside",
      { cause: error },
    );
  }
  return names;
}

/**
 * The transcript files of `dir`, newest first, from directory metadata alone (no file is
 * opened). Ties keep name order so the result is stable.
 */
export async function transcriptFiles(dir: string): Promise<TranscriptFile[]> {
  const out: TranscriptFile[] = [];
  for (const name of await transcriptNames(dir)) {
    const path = join(dir, name);
    try {
      // Synchronous stats: a thousand cost a few milliseconds, a third of the async ones.
      const stat = Deno.statSync(path);
      if (stat.isFile) out.push({ name, path, size: stat.size, mtime: stat.mtime?.getTime() ?? 0 });
    } catch {
      // Removed meanwhile.
    }
  }
  return out.sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function summary(file: TranscriptFile, entry: SessionEntry): SessionSummary | undefined {
  if (!entry.meta) return undefined;
  return {
    meta: entry.meta,
    path: file.path,
    updated: new Date(file.mtime),
    messages: entry.messages,
    title: entry.title,
  };
}

/**
 * Lists a workspace's sessions, newest first; with `offset` and `limit`, one page of them.
 * Only the files of the page whose listing entry is out of date are read, and only what was
 * appended to them since.
 */
export async function listSessions(
  dir: string,
  opts: { offset?: number; limit?: number } = {},
): Promise<SessionSummary[]> {
  const files = await transcriptFiles(dir);
  if (files.length === 0) return [];
  const offset = Math.max(0, opts.offset ?? 0);
  const limit = opts.limit ?? Infinity;
  const known = await loadSessionIndex(dir);
  const updated = new Map<string, SessionEntry>();
  const out: SessionSummary[] = [];
  let skipped = 0;
  for (const file of files) {
    if (out.length >= limit) break;
    const before = known.get(file.name);
    let entry: SessionEntry;
    try {
      entry = await refreshEntry(file.path, file, before);
    } catch {
      continue; // An unreadable file is not a session we can resume; skip it.
    }
    if (entry !== before) updated.set(file.name, entry);
    const listed = summary(file, entry);
    if (!listed) continue;
    if (skipped < offset) skipped++;
    else out.push(listed);
  }
  const present = new Set(files.map((f) => f.name));
  if (updated.size > 0 || known.size > present.size) {
    await saveSessionIndex(dir, updated, present);
  }
  return out;
}

/**
 * The newest session's transcript, chosen by modification time; only its head is read (and
 * the next one's when it is not a transcript).
 */
export async function latestSession(dir: string): Promise<string | undefined> {
  for (const file of await transcriptFiles(dir)) {
    if (await readHead(file.path)) return file.path;
  }
  return undefined;
}

/**
 * The transcript of a session by full id or unique id prefix, matched against file names;
 * only the heads of matching files are read.
 */
export async function locateSession(
  dir: string,
  idOrPrefix: string,
): Promise<string | "ambiguous" | undefined> {
  const names = (await transcriptNames(dir)).filter((n) => n.startsWith(idOrPrefix));
  const found: { path: string; id: string }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const head = await readHead(path);
    if (!head) continue;
    if (head.meta.id === idOrPrefix) return path;
    if (head.meta.id.startsWith(idOrPrefix)) found.push({ path, id: head.meta.id });
  }
  if (found.length > 1) return "ambiguous";
  return found[0]?.path;
}

/** Finds a session by full id or unique id prefix; reads only the matching transcripts. */
export async function findSession(
  dir: string,
  idOrPrefix: string,
): Promise<SessionSummary | "ambiguous" | undefined> {
  const path = await locateSession(dir, idOrPrefix);
  if (path === undefined || path === "ambiguous") return path;
  let stat: Deno.FileInfo;
  try {
    stat = await Deno.stat(path);
  } catch {
    return undefined;
  }
  const file = { name: basename(path), path, size: stat.size, mtime: stat.mtime?.getTime() ?? 0 };
  return summary(file, await refreshEntry(path, file, undefined));
}
