/**
 * The persisted history index of a sessions directory (`.index/history.bin` beside the
 * transcripts): the BM25 index over the searchable text of every message of every transcript,
 * where each indexed message is in its file (so a hit is read back alone), and per transcript
 * how far it was indexed together with its size and modification time then.
 *
 * The file is a cache. It is trusted only whole: a magic number, a format version (this
 * module's and the BM25 form's) and a checksum over everything after the first 16 bytes; a
 * file that fails any check is rebuilt, never read. A transcript whose size and mtime match
 * its entry is current; one that grew from the entry's last whole line (same first line) is
 * indexed from there; anything else (shrunk, replaced, deleted) has its documents dropped and
 * is indexed again. Writes go through a temporary file renamed over the index, so a crash or
 * a concurrent writer leaves a whole file; losing a race only costs indexing again later.
 *
 * @module
 */
import { join } from "node:path";
import { ensureIndexDir, indexDir, writeAtomic } from "../store/session_index.ts";
import { BM25_FORMAT_VERSION, Bm25Index } from "./bm25.ts";

const MAGIC = 0x49485852; // "RXHI"
/** Version of the history index file; any other is rebuilt. */
export const HISTORY_INDEX_VERSION = 1;
const PREFIX = 16;

/** One transcript as the history index last saw it. */
export interface StoredSession {
  /** File name, `<id>.jsonl`. */
  name: string;
  /** The session id ("" when the file has no session record). */
  id: string;
  /** Bytes indexed, up to the last whole line. */
  read: number;
  /** The first line, to tell an appended file from a replaced one. */
  head: string;
  /** Size and modification time (ms) when indexed. */
  size: number;
  mtime: number;
  /** Message records read (the next expected message index). */
  messages: number;
}

/** Where each document of the index is: session ordinal, message index, line bytes. */
export class DocRefs {
  session: Float64Array;
  index: Float64Array;
  start: Float64Array;
  end: Float64Array;
  length = 0;

  constructor(capacity = 1024) {
    this.session = new Float64Array(capacity);
    this.index = new Float64Array(capacity);
    this.start = new Float64Array(capacity);
    this.end = new Float64Array(capacity);
  }

  /** Appends a document's location; returns its number. */
  push(session: number, index: number, start = 0, end = 0): number {
    if (this.length === this.session.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.session = grow(this.session);
      this.index = grow(this.index);
      this.start = grow(this.start);
      this.end = grow(this.end);
    }
    const doc = this.length++;
    this.session[doc] = session;
    this.index[doc] = index;
    this.start[doc] = start;
    this.end[doc] = end;
    return doc;
  }
}

/** What the history index file holds. */
export interface StoredHistory {
  sessions: StoredSession[];
  refs: DocRefs;
  index: Bm25Index;
}

/** The history index file of a sessions directory. */
export function historyIndexPath(dir: string): string {
  return join(indexDir(dir), "history.bin");
}

/**
 * A 32-bit checksum of `bytes`: Fletcher-style running sums over 32-bit words, which catch
 * flipped, swapped and missing words and take a few milliseconds per ten megabytes.
 */
export function checksum(bytes: Uint8Array): number {
  let a = bytes.length | 0;
  let b = 0;
  const words = bytes.byteOffset % 4 === 0
    ? new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2)
    : new Uint32Array(bytes.slice(0, bytes.length & ~3).buffer);
  for (let i = 0; i < words.length; i++) {
    a = (a + words[i]) | 0;
    b = (b + a) | 0;
  }
  for (let i = bytes.length & ~3; i < bytes.length; i++) {
    a = (a + bytes[i]) | 0;
    b = (b + a) | 0;
  }
  return ((b << 16) ^ (b >>> 16) ^ a) >>> 0;
}

const pad8 = (n: number) => (n + 7) & ~7;

function isStoredSession(v: unknown): v is StoredSession {
  if (typeof v !== "object" || v === null) return false;
  const s = v as Record<string, unknown>;
  // A bare transcript name: a hit is read back from `join(dir, name)`.
  return typeof s.name === "string" && /^[^/\\]+\.jsonl$/.test(s.name) &&
    typeof s.id === "string" && typeof s.head === "string" &&
    Number.isInteger(s.read) && Number.isInteger(s.size) && typeof s.mtime === "number" &&
    Number.isInteger(s.messages);
}

/** Encodes the documents of `stored` whose number passes `keep` (renumbered in order). */
export function encodeHistory(
  stored: StoredHistory,
  keep: (doc: number) => boolean,
  keepSession: (ordinal: number) => boolean,
): Uint8Array {
  const ordinals = new Int32Array(stored.sessions.length).fill(-1);
  const sessions: StoredSession[] = [];
  stored.sessions.forEach((s, i) => {
    if (!keepSession(i)) return;
    ordinals[i] = sessions.length;
    sessions.push(s);
  });
  const refs = stored.refs;
  const kept = new Uint8Array(refs.length);
  let count = 0;
  for (let doc = 0; doc < refs.length; doc++) {
    if (keep(doc) && ordinals[refs.session[doc]] >= 0) {
      kept[doc] = 1;
      count++;
    }
  }
  // Ids are document numbers, as `refs` positions are.
  const bm25 = stored.index.serialize((doc) => kept[doc] === 1, { renumber: true });
  const header = new TextEncoder().encode(JSON.stringify({ sessions, docs: count }));
  const refsAt = pad8(PREFIX + header.length);
  const bm25At = refsAt + count * 32;
  const out = new Uint8Array(bm25At + bm25.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, HISTORY_INDEX_VERSION * 0x10000 + BM25_FORMAT_VERSION, true);
  view.setUint32(8, header.length, true);
  out.set(header, PREFIX);
  const flat = new Float64Array(out.buffer, refsAt, count * 4);
  for (let doc = 0, i = 0; doc < refs.length; doc++) {
    if (!kept[doc]) continue;
    flat[i++] = ordinals[refs.session[doc]];
    flat[i++] = refs.index[doc];
    flat[i++] = refs.start[doc];
    flat[i++] = refs.end[doc];
  }
  out.set(bm25, bm25At);
  view.setUint32(12, checksum(out.subarray(PREFIX)), true);
  return out;
}

/** Decodes a history index file; undefined when it fails any check. */
export function decodeHistory(bytes: Uint8Array): StoredHistory | undefined {
  try {
    if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
    if (bytes.length < PREFIX) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== MAGIC) return undefined;
    if (view.getUint32(4, true) !== HISTORY_INDEX_VERSION * 0x10000 + BM25_FORMAT_VERSION) {
      return undefined;
    }
    if (view.getUint32(12, true) !== checksum(bytes.subarray(PREFIX))) return undefined;
    const headerLength = view.getUint32(8, true);
    const header = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(
        bytes.subarray(PREFIX, PREFIX + headerLength),
      ),
    ) as { sessions?: unknown; docs?: unknown };
    if (!Array.isArray(header.sessions) || !header.sessions.every(isStoredSession)) {
      return undefined;
    }
    const count = header.docs;
    if (!Number.isInteger(count)) return undefined;
    const docs = count as number;
    const refsAt = pad8(PREFIX + headerLength);
    const bm25At = refsAt + docs * 32;
    if (bm25At > bytes.length) return undefined;
    const index = Bm25Index.load(bytes.subarray(bm25At));
    if (index.size !== docs) return undefined;
    const flat = new Float64Array(bytes.buffer, bytes.byteOffset + refsAt, docs * 4);
    const refs = new DocRefs(Math.max(1024, docs * 2));
    const sessions = header.sessions.length;
    for (let i = 0, at = 0; i < docs; i++) {
      const session = flat[at];
      if (!(Number.isInteger(session) && session >= 0 && session < sessions)) return undefined;
      refs.session[i] = session;
      refs.index[i] = flat[at + 1];
      refs.start[i] = flat[at + 2];
      refs.end[i] = flat[at + 3];
      at += 4;
    }
    refs.length = docs;
    return { sessions: header.sessions, refs, index };
  } catch {
    return undefined;
  }
}

/** Reads the history index of `dir`; undefined when missing or not trustworthy. */
export async function loadHistory(dir: string): Promise<StoredHistory | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(historyIndexPath(dir));
  } catch {
    return undefined;
  }
  return decodeHistory(bytes);
}

/** Writes the history index of `dir` atomically; failures are ignored (it is a cache). */
export async function saveHistory(dir: string, bytes: Uint8Array): Promise<void> {
  try {
    await ensureIndexDir(dir);
    await writeAtomic(historyIndexPath(dir), bytes);
  } catch {
    // A full or read-only disk: the next process indexes again.
  }
}
