/**
 * Reading parts of transcript files by byte offset: the head (to tell a transcript and its id
 * without reading the rest), the bytes appended since an earlier look, and one record line.
 * Listing sessions and history search use these to read what changed rather than every file.
 *
 * @module
 */
import { isMessage, isMeta } from "./record_shape.ts";
import type { SessionMeta } from "./records.ts";
import type { Message } from "../../providers/types.ts";

/** Reads bytes `[from, to)` of an open file (fewer when it is shorter). */
async function readRange(file: Deno.FsFile, from: number, to: number): Promise<Uint8Array> {
  const out = new Uint8Array(Math.max(0, to - from));
  await file.seek(from, Deno.SeekMode.Start);
  let filled = 0;
  while (filled < out.length) {
    const n = await file.read(out.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return out.subarray(0, filled);
}

/** Bytes `[from, to)` of the file at `path`; `to` defaults to its end. */
export async function readBytes(path: string, from = 0, to?: number): Promise<Uint8Array> {
  if (from === 0 && to === undefined) return await Deno.readFile(path);
  using file = await Deno.open(path, { read: true });
  const end = to ?? (await file.stat()).size;
  return await readRange(file, from, end);
}

/**
 * Calls `fn` for every whole line of `bytes` (a line ends with `\n`) with its text and byte
 * offsets relative to `base`; returns the offset just past the last whole line, so a torn
 * last line is read again once it is complete.
 */
export function scanLines(
  bytes: Uint8Array,
  base: number,
  fn: (line: string, start: number, end: number) => void,
): number {
  const decoder = new TextDecoder();
  let at = 0;
  for (;;) {
    const nl = bytes.indexOf(0x0a, at);
    if (nl < 0) break;
    if (nl > at) fn(decoder.decode(bytes.subarray(at, nl)), base + at, base + nl);
    at = nl + 1;
  }
  return base + at;
}

/** Parses a line as JSON, or undefined. */
export function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The session record of a parsed line, if it is a valid one. */
export function sessionOf(
  record: Record<string, unknown> | undefined,
): { meta: SessionMeta; version: number } | undefined {
  if (record?.t !== "session" || !isMeta(record.meta) || !Number.isInteger(record.v)) {
    return undefined;
  }
  return { meta: record.meta as SessionMeta, version: record.v as number };
}

/**
 * The message of a parsed line when it is the message record number `expected`: the same
 * rule the transcript reader applies, so counts and offsets agree with what a resume loads.
 */
export function messageOf(
  record: Record<string, unknown> | undefined,
  expected: number,
): Message | undefined {
  if (record?.t !== "msg" || record.i !== expected || !isMessage(record.m)) return undefined;
  return record.m as Message;
}

const HEAD_BYTES = 16 * 1024;

/**
 * The session record at the head of a transcript, reading only its first bytes; undefined
 * when the file is not a transcript. A transcript whose first whole line is not its session
 * record (damage) is read in full, as the reader would.
 */
export async function readHead(
  path: string,
): Promise<{ meta: SessionMeta; version: number } | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readBytes(path, 0, HEAD_BYTES);
  } catch {
    return undefined;
  }
  const nl = bytes.indexOf(0x0a);
  if (nl >= 0) {
    const found = sessionOf(parseLine(new TextDecoder().decode(bytes.subarray(0, nl))));
    if (found) return found;
  }
  let all: Uint8Array;
  try {
    all = bytes.length < HEAD_BYTES ? bytes : await readBytes(path);
  } catch {
    return undefined;
  }
  let found: { meta: SessionMeta; version: number } | undefined;
  const text = new TextDecoder().decode(all);
  for (const line of text.split("\n")) {
    found = sessionOf(parseLine(line));
    if (found) break;
  }
  return found;
}

/**
 * The message recorded on the line at `[start, end)` of `path`, if it is still there. Read
 * synchronously: a search reads a handful of short lines, where async file calls cost more
 * than the reads.
 */
export function readMessageAt(
  path: string,
  at: { start: number; end: number; index: number },
): Message | undefined {
  try {
    using file = Deno.openSync(path, { read: true });
    file.seekSync(at.start, Deno.SeekMode.Start);
    const bytes = new Uint8Array(at.end - at.start);
    let filled = 0;
    while (filled < bytes.length) {
      const n = file.readSync(bytes.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    return messageOf(parseLine(new TextDecoder().decode(bytes.subarray(0, filled))), at.index);
  } catch {
    return undefined;
  }
}
