/**
 * Reading what a reference points at: a capped text file, a binary marker, or a depth-first
 * directory listing that skips noise.
 *
 * @module
 */
import { join } from "node:path";
import { isNoise } from "./noise.ts";

/** Bytes inspected to tell text from binary. */
const SNIFF_BYTES = 8192;

/** The head of a file, or a note that it is binary. */
export type FileContent =
  | { binary: true; size: number }
  | { binary: false; size: number; text: string; truncated: boolean };

/** Reads up to `count` bytes from the file's position (fewer at its end). */
async function readUpTo(file: Deno.FsFile, count: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(count);
  let filled = 0;
  while (filled < count) {
    const n = await file.read(buffer.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

/** The first `count` bytes of a file (fewer when it is shorter). */
export async function readHead(path: string, count: number): Promise<Uint8Array> {
  using file = await Deno.open(path, { read: true });
  return await readUpTo(file, count);
}

/**
 * Reads at most `maxBytes` of a file. A NUL byte in the first 8 KiB or bytes that are not
 * UTF-8 mark it binary; its content is then not returned.
 */
export async function readCappedFile(path: string, maxBytes: number): Promise<FileContent> {
  using file = await Deno.open(path, { read: true });
  const size = (await file.stat()).size;
  const bytes = await readUpTo(file, Math.min(size, maxBytes));
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return { binary: true, size };
  let text: string;
  try {
    // `stream: true` keeps a multi-byte character cut by the cap from counting as invalid.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: bytes.length < size });
  } catch {
    return { binary: true, size };
  }
  return { binary: false, size, text, truncated: bytes.length < size };
}

/** A directory listing. */
export interface DirectoryListing {
  lines: string[];
  /** Entries listed. */
  entries: number;
  truncated: boolean;
}

/**
 * Lists `dir` depth-first in name order: each directory's contents follow it, indented two
 * spaces per level. Noise (`.git`, `node_modules`, …) and what `hide` names are skipped, and
 * symlinks are not followed. Stops after `maxEntries` entries.
 */
export async function listDirectory(
  dir: string,
  opts: {
    maxEntries: number;
    signal?: AbortSignal;
    /** Entries (by their path under `dir`) left out of the listing and not descended into. */
    hide?: (path: string) => boolean;
  },
): Promise<DirectoryListing> {
  const lines: string[] = [];
  let truncated = false;
  const walk = async (path: string, depth: number): Promise<void> => {
    opts.signal?.throwIfAborted();
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(path)) {
      if (!isNoise(entry.name) && !opts.hide?.(join(path, entry.name))) entries.push(entry);
    }
    entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    for (const entry of entries) {
      if (lines.length >= opts.maxEntries) {
        truncated = true;
        return;
      }
      const indent = "  ".repeat(depth);
      if (entry.isDirectory) {
        lines.push(`${indent}${entry.name}/`);
        try {
          await walk(join(path, entry.name), depth + 1);
        } catch (error) {
          if (opts.signal?.aborted) throw error;
          lines.push(`${indent}  [unreadable: ${(error as Error).message}]`);
        }
        if (truncated) return;
      } else {
        lines.push(`${indent}${entry.name}${entry.isSymlink ? "@" : ""}`);
      }
    }
  };
  await walk(dir, 0);
  return { lines, entries: lines.length, truncated };
}
