/**
 * Where sessions live and how they are found again: one directory per workspace under the
 * Reasonix home, one transcript per session.
 *
 * @module
 */
import { basename, join } from "node:path";
import { parseTranscript, type SessionMeta, TranscriptError } from "./transcript.ts";

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

/** Strips the volatile blocks the harness adds to user turns, leaving the user's words. */
export function userText(content: string): string {
  return content
    .replace(/<environment>[\s\S]*?<\/environment>\s*/g, "")
    .replace(/<project-instructions[\s\S]*?<\/project-instructions>\s*/g, "")
    .replace(/<date>[\s\S]*?<\/date>\s*/g, "")
    .replace(/<recalled-memory[\s\S]*?<\/recalled-memory>\s*/g, "")
    .replace(/<image-description[\s\S]*?<\/image-description>\s*/g, "")
    .replace(/<image-unavailable[\s\S]*?<\/image-unavailable>\s*/g, "")
    .trim();
}

/** Lists a workspace's sessions, newest first. */
export async function listSessions(dir: string): Promise<SessionSummary[]> {
  const out: SessionSummary[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw new TranscriptError(
      "transcript_read",
      `cannot list the sessions in ${dir}: ${(error as Error).message}. ` +
        "Something that is not a folder is in the way (see REASONIX_HOME); move it aside",
      { cause: error },
    );
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
    const path = join(dir, entry.name);
    try {
      const [text, stat] = await Promise.all([Deno.readTextFile(path), Deno.stat(path)]);
      const loaded = parseTranscript(text);
      if (!loaded) continue;
      const first = loaded.messages.find((m) => m.role === "user");
      const title = first ? userText(first.content).replace(/\s+/g, " ").slice(0, 80) : "";
      out.push({
        meta: loaded.meta,
        path,
        updated: stat.mtime ?? new Date(0),
        messages: loaded.messages.length,
        title,
      });
    } catch {
      // An unreadable file is not a session we can resume; skip it.
    }
  }
  return out.sort((a, b) => b.updated.getTime() - a.updated.getTime());
}

/** Finds a session by full id or unique id prefix. */
export async function findSession(
  dir: string,
  idOrPrefix: string,
): Promise<SessionSummary | "ambiguous" | undefined> {
  const all = await listSessions(dir);
  const exact = all.find((s) => s.meta.id === idOrPrefix);
  if (exact) return exact;
  const matches = all.filter((s) => s.meta.id.startsWith(idOrPrefix));
  if (matches.length > 1) return "ambiguous";
  return matches[0];
}
