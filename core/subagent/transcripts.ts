/**
 * Existing child transcripts as a child's starting point (spec §3.13): the only way a child
 * gets earlier conversation is `continue_from` (the run appends to that transcript) or
 * `fork_from` (the transcript is copied into a new session, which the run appends to; the
 * original stays as it was). Both name a transcript among the session folder's subagents.
 *
 * @module
 */
import { join } from "node:path";
import { locateSession, rawPath, transcriptPath } from "../store/mod.ts";

import type { ContextCapsule } from "./capsule.ts";

/** A transcript a child starts from, as its capsule records it. */
export type ContinuedTranscript = NonNullable<ContextCapsule["continued"]>;

/** A `continue_from` / `fork_from` that names no usable transcript. */
export class TranscriptRefusal extends Error {
  override name = "TranscriptRefusal";
}

/** The path and full id of the child transcript `idOrPrefix` in `dir`. */
export async function locateChildTranscript(
  dir: string,
  idOrPrefix: string,
): Promise<{ path: string; id: string }> {
  const found = idOrPrefix.trim() ? await locateSession(dir, idOrPrefix) : undefined;
  if (found === "ambiguous") {
    throw new TranscriptRefusal(
      `"${idOrPrefix}" matches several subagent sessions; give more of it`,
    );
  }
  if (!found) throw new TranscriptRefusal(`no subagent session "${idOrPrefix}" to start from`);
  const id = headId(await Deno.readTextFile(found));
  if (!id) throw new TranscriptRefusal(`${found} is not a Reasonix session transcript`);
  return { path: found, id };
}

/**
 * Copies the transcript at `path` into `dir` as a new session (its raw-content file too, byte
 * for byte, so the records' offsets stay valid) and returns the new id.
 */
export async function forkTranscript(
  dir: string,
  path: string,
  opts: { now?: Date } = {},
): Promise<string> {
  const text = await Deno.readTextFile(path);
  const newline = text.indexOf("\n");
  const head = JSON.parse(newline < 0 ? text : text.slice(0, newline));
  const id = crypto.randomUUID();
  head.meta = { ...head.meta, id, created: (opts.now ?? new Date()).toISOString() };
  const target = transcriptPath(dir, id);
  const raw = await Deno.readFile(rawPath(path)).catch(() => undefined);
  if (raw) await Deno.writeFile(rawPath(target), raw, { mode: 0o600, createNew: true });
  await Deno.writeTextFile(
    target,
    JSON.stringify(head) + "\n" + (newline < 0 ? "" : text.slice(newline + 1)),
    { mode: 0o600, createNew: true },
  );
  return id;
}

/** The directory child transcripts live in, below a session folder. */
export function childTranscriptDir(sessionDir: string): string {
  return join(sessionDir, "subagents");
}

function headId(text: string): string | undefined {
  try {
    const newline = text.indexOf("\n");
    const head = JSON.parse(newline < 0 ? text : text.slice(0, newline));
    return head?.t === "session" && typeof head.meta?.id === "string" ? head.meta.id : undefined;
  } catch {
    return undefined;
  }
}
