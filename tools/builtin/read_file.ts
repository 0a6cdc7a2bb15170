/**
 * `read_file`: a window of a text file with `cat -n` line numbers, streamed so a window of a
 * large file never loads the whole file.
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { resolveToolPath } from "../paths.ts";
import { registerBuiltinTool } from "../registry.ts";
import type { Tool, ToolErrorCode, ToolResult } from "../types.ts";
import { isNotFound } from "../workspace/errors.ts";
import type { FileHandle, FileInfo } from "../workspace/types.ts";
import {
  charCount,
  formatSize,
  fsErrorMessage,
  MAX_TEXT_FILE_BYTES,
  sliceChars,
  specialFileKind,
} from "../fs/mod.ts";

/** Default number of lines in one window. */
export const DEFAULT_READ_LIMIT = 2000;
/** Longer lines are cut, so a minified file cannot flood the context. */
export const MAX_LINE_CHARS = 2000;
/**
 * Output beyond this many UTF-8 bytes ends the window early (with a continuation hint), so
 * the result fits the 32 KiB result bound and the hint's offset stays exact.
 */
export const MAX_OUTPUT_BYTES = 30 * 1024;
const SNIFF_BYTES = 8192;
const CHUNK_BYTES = 64 * 1024;

const input = z.object({
  path: z.string().min(1).describe("File to read."),
  offset: z.number().int().min(1).optional().describe("First line to return, 1-based. Default 1."),
  limit: z.number().int().min(1).optional().describe(
    `Maximum number of lines to return. Default ${DEFAULT_READ_LIMIT}.`,
  ),
});

function fail(content: string, code: ToolErrorCode): ToolResult {
  return { content, isError: true, code };
}

type Sniff =
  | { kind: "text"; encoding: "utf-8" | "utf-16le" | "utf-16be" }
  | { kind: "binary" };

/** Decides how to decode a file from its first bytes. */
export function sniffEncoding(head: Uint8Array): Sniff {
  if (head[0] === 0xff && head[1] === 0xfe) return { kind: "text", encoding: "utf-16le" };
  if (head[0] === 0xfe && head[1] === 0xff) return { kind: "text", encoding: "utf-16be" };
  if (head.includes(0)) return { kind: "binary" };
  // Streaming decode, so a character cut at the end of the sample does not count as invalid.
  const text = new TextDecoder().decode(head, { stream: true });
  let invalid = 0;
  for (const ch of text) if (ch === "\uFFFD") invalid++;
  return invalid > 8 && invalid > text.length / 10 ? { kind: "binary" } : {
    kind: "text",
    encoding: "utf-8",
  };
}

/** UTF-8 length of a string without encoding it. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
  }
  return n;
}

/** Collects the requested window of lines from decoded text pieces. */
class LineWindow {
  /** Completed lines seen so far (terminated by `\n`). */
  lineNo = 0;
  /** Whether the window is full; afterwards lines are only counted. */
  full = false;
  /** Last line number put into the output. */
  lastEmitted = 0;
  readonly out: string[] = [];
  #bytes = 0;
  /** The start of the current line (at most MAX_LINE_CHARS + 1 UTF-16 units). */
  #current = "";
  /** Length of the whole current line in UTF-16 units and in characters. */
  #currentUnits = 0;
  #currentChars = 0;
  /** Whether the current line's last character so far is `\r`. */
  #endsWithCr = false;
  /** Whether text follows the last line break (an unterminated final line). */
  #pending = false;
  /** Lines completed after the window was full. */
  after = 0;

  constructor(readonly offset: number, readonly limit: number) {}

  feed(text: string): void {
    let i = 0;
    while (!this.full) {
      const nl = text.indexOf("\n", i);
      const piece = nl === -1 ? text.slice(i) : text.slice(i, nl);
      if (this.lineNo + 1 >= this.offset) this.#append(piece);
      if (piece.length > 0) this.#pending = true;
      if (nl === -1) return;
      this.#complete();
      i = nl + 1;
    }
    for (let nl = text.indexOf("\n", i); nl !== -1; nl = text.indexOf("\n", i)) {
      this.after++;
      i = nl + 1;
    }
    if (i < text.length) this.#pending = true;
    else if (text.length > 0) this.#pending = false;
  }

  /** Completes an unterminated last line at end of file. */
  finish(): void {
    if (!this.#pending) return;
    if (this.full) this.after++;
    else this.#complete();
  }

  /** Total lines in the file; exact only when the whole file was scanned. */
  get total(): number {
    return this.lineNo + this.after;
  }

  #append(piece: string): void {
    if (piece.length === 0) return;
    if (this.#current.length <= MAX_LINE_CHARS) {
      this.#current += piece.slice(0, MAX_LINE_CHARS + 1 - this.#current.length);
    }
    this.#currentUnits += piece.length;
    this.#currentChars += charCount(piece);
    this.#endsWithCr = piece.endsWith("\r");
  }

  #complete(): void {
    this.lineNo++;
    this.#pending = false;
    if (this.lineNo < this.offset) return;
    let units = this.#currentUnits;
    let chars = this.#currentChars;
    if (this.#endsWithCr) {
      units--;
      chars--;
    }
    let line = this.#current.slice(0, units);
    if (units > MAX_LINE_CHARS) {
      // Cut between characters: half a surrogate pair is not valid text for the provider.
      const kept = sliceChars(line, MAX_LINE_CHARS);
      line = `${kept} [... line truncated, ${chars - charCount(kept)} more characters]`;
    }
    const formatted = `${String(this.lineNo).padStart(6)}\t${line}`;
    this.#current = "";
    this.#currentUnits = 0;
    this.#currentChars = 0;
    this.#endsWithCr = false;
    const size = utf8Length(formatted) + 1;
    if (this.out.length > 0 && this.#bytes + size > MAX_OUTPUT_BYTES) {
      // This line does not fit; it is counted as remaining instead.
      this.full = true;
      this.after++;
      this.lineNo--;
      return;
    }
    this.out.push(formatted);
    this.#bytes += size;
    this.lastEmitted = this.lineNo;
    if (this.lineNo >= this.offset + this.limit - 1) this.full = true;
  }
}

/** The `read_file` tool. */
export const readFileTool: Tool = defineTool({
  name: "read_file",
  description: "Read a text file. Lines are numbered like `cat -n` (number, tab, text); the " +
    "number is not part of the file. Returns up to `limit` lines from `offset` (30 KiB of " +
    "text at most) and ends with the offset to continue from when more lines remain. Lines over " +
    "2000 characters are truncated. Binary files are reported, not shown. Files over 10 MiB " +
    "need offset/limit; grep finds text in large files. Use ls for directories.",
  input,
  readOnly: true,
  access: (args) => ({ rule: "Read", reads: [args.path] }),
  async run(args, ctx) {
    const path = resolveToolPath(ctx.root, args.path);
    const shown = args.path;
    const ws = ctx.workspace;
    let info: FileInfo;
    try {
      info = await ws.stat(path, { signal: ctx.signal });
    } catch (error) {
      if (ctx.signal.aborted) return fail(`Reading ${shown} was cancelled.`, "cancelled");
      if (isNotFound(error)) {
        return fail(
          `File not found: ${shown}. Check the path, or use glob to find the file.`,
          "not_found",
        );
      }
      return fail(`Cannot read ${shown}: ${fsErrorMessage(error, shown)}.`, "io");
    }
    if (info.isDirectory) {
      return fail(`${shown} is a directory, not a file. Use ls to list its entries.`, "wrong_type");
    }
    if (!info.isFile) {
      return fail(
        `Cannot read ${shown}: it is ${specialFileKind(info)}, not a regular file; read_file ` +
          "reads only regular files.",
        "wrong_type",
      );
    }
    if (ctx.readGuard) {
      // The gate checked the path as given; this is the file that will be opened.
      const by = ctx.readGuard.blocked(await ctx.readGuard.canonical(path), "Read");
      if (by) {
        return fail(`Cannot read ${shown}: the ${by} denies reading it.`, "permission_denied");
      }
    }
    const windowed = args.offset !== undefined || args.limit !== undefined;
    if (info.size > MAX_TEXT_FILE_BYTES && !windowed) {
      return fail(
        `${shown} is ${formatSize(info.size)}; read_file returns whole files only up to ` +
          `${formatSize(MAX_TEXT_FILE_BYTES)}. Read a window with offset and limit, or use grep ` +
          "to find the relevant lines.",
        "too_large",
      );
    }
    const offset = args.offset ?? 1;
    const window = new LineWindow(offset, args.limit ?? DEFAULT_READ_LIMIT);
    // Counting the lines after the window of a huge file would read all of it.
    const countRest = info.size <= MAX_TEXT_FILE_BYTES;
    let file: FileHandle;
    try {
      file = await ws.open(path, { read: true, signal: ctx.signal });
    } catch (error) {
      if (ctx.signal.aborted) return fail(`Reading ${shown} was cancelled.`, "cancelled");
      return fail(`Cannot read ${shown}: ${fsErrorMessage(error, shown)}.`, "io");
    }
    let reachedEnd = false;
    try {
      const buffer = new Uint8Array(CHUNK_BYTES);
      let decoder: TextDecoder | undefined;
      while (!window.full || countRest) {
        if (ctx.signal.aborted) return fail(`Reading ${shown} was cancelled.`, "cancelled");
        const n = await file.read(decoder ? buffer : buffer.subarray(0, SNIFF_BYTES));
        if (n === null) {
          reachedEnd = true;
          break;
        }
        const chunk = buffer.subarray(0, n);
        if (!decoder) {
          const sniff = sniffEncoding(chunk);
          if (sniff.kind === "binary") {
            return {
              content: `${shown} is a binary file (${formatSize(info.size)}); its bytes are not ` +
                "shown. Inspect it with bash (e.g. `file`, `xxd | head`) if needed.",
            };
          }
          decoder = new TextDecoder(sniff.encoding);
        }
        window.feed(decoder.decode(chunk, { stream: true }));
      }
      if (reachedEnd) {
        window.feed(decoder?.decode() ?? "");
        window.finish();
      }
    } catch (error) {
      return fail(`Cannot read ${shown}: ${fsErrorMessage(error, shown)}.`, "io");
    } finally {
      await file.close().catch(() => {});
    }
    if (window.out.length === 0) {
      if (window.total === 0) return { content: `${shown} is empty (0 lines).` };
      return fail(
        `offset ${offset} is past the end of ${shown}, which has ${window.total} lines. ` +
          `Use an offset from 1 to ${window.total}.`,
        "invalid_arguments",
      );
    }
    const next = window.lastEmitted + 1;
    let hint = "";
    if (!reachedEnd) {
      hint = `\n[... more lines; call read_file with offset=${next} to continue]`;
    } else if (window.after > 0) {
      const noun = window.after === 1 ? "line" : "lines";
      hint = `\n[... ${window.after} more ${noun}; call read_file with offset=${next} to continue]`;
    }
    return { content: window.out.join("\n") + hint };
  },
});

registerBuiltinTool(readFileTool);
