/**
 * Exact-text replacement shared by `edit_file` and `multi_edit`: decoding that preserves the
 * file's encoding, matching that follows its line endings, precise failure messages, and the
 * read → apply → atomic write sequence.
 *
 * @module
 */
import { resolveToolPath } from "../paths.ts";
import type { ToolContext, ToolErrorCode, ToolResult } from "../types.ts";
import { isNotFound } from "../workspace/errors.ts";
import type { FileInfo } from "../workspace/types.ts";
import { unifiedDiff } from "./diff_meta.ts";
import {
  atomicWrite,
  formatSize,
  fsErrorMessage,
  MAX_TEXT_FILE_BYTES,
  permissionBits,
  readOnlyReason,
  sliceChars,
  specialFileKind,
  writeTarget,
} from "../fs/mod.ts";

/** Text encodings an edit can round-trip. */
export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be";

/** A decoded text file and how to encode it back. */
export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
  /** Whether the file starts with a byte-order mark. */
  bom: boolean;
}

/** Outcome of {@linkcode decodeText}. */
export type DecodeResult = { ok: true; value: DecodedText } | { ok: false; error: string };

/** Dominant line ending of a text. */
export type LineEnding = "lf" | "crlf";

/** One replacement, as the model writes it. */
export interface TextEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Outcome of {@linkcode applyEdit}. */
export type EditOutcome =
  | {
    ok: true;
    text: string;
    replacements: number;
    /** Start of the first replacement in the new text. */
    start: number;
    /** End of the first replacement in the new text. */
    end: number;
  }
  | { ok: false; error: string };

const UTF8_BOM = [0xef, 0xbb, 0xbf];

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}

function decodeStrict(label: string, bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Decodes file bytes for editing: UTF-8 (with or without BOM) or UTF-16 with a BOM. Anything
 * else is refused, because re-encoding it would corrupt the file.
 */
export function decodeText(bytes: Uint8Array): DecodeResult {
  let encoding: TextEncodingName = "utf-8";
  let bom = false;
  let body = bytes;
  if (startsWith(bytes, UTF8_BOM)) {
    bom = true;
    body = bytes.subarray(3);
  } else if (startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff])) {
    encoding = bytes[0] === 0xff ? "utf-16le" : "utf-16be";
    bom = true;
    body = bytes.subarray(2);
  }
  const text = decodeStrict(encoding, body);
  if (text === undefined) {
    return {
      ok: false,
      error: encoding === "utf-8"
        ? "the file is not valid UTF-8 (and has no UTF-16 byte-order mark), so editing it as " +
          "text could corrupt it; convert it to UTF-8 first (e.g. with iconv via bash)"
        : `the file has a ${encoding.toUpperCase()} byte-order mark but invalid content`,
    };
  }
  if (text.includes("\0")) {
    return { ok: false, error: "the file looks binary (it contains NUL characters)" };
  }
  return { ok: true, value: { text, encoding, bom } };
}

/** Encodes text back into the file's original encoding and byte-order mark. */
export function encodeText(text: string, encoding: TextEncodingName, bom: boolean): Uint8Array {
  if (encoding === "utf-8") {
    const body = new TextEncoder().encode(text);
    if (!bom) return body;
    const out = new Uint8Array(body.length + 3);
    out.set(UTF8_BOM);
    out.set(body, 3);
    return out;
  }
  const offset = bom ? 2 : 0;
  const out = new Uint8Array(offset + text.length * 2);
  const view = new DataView(out.buffer);
  const littleEndian = encoding === "utf-16le";
  if (bom) view.setUint16(0, 0xfeff, littleEndian);
  for (let i = 0; i < text.length; i++) {
    view.setUint16(offset + i * 2, text.charCodeAt(i), littleEndian);
  }
  return out;
}

/** The line ending most lines of `text` use; LF when there are none. */
export function detectLineEnding(text: string): LineEnding {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text[i - 1] === "\r") crlf++;
    else lf++;
  }
  return crlf > lf ? "crlf" : "lf";
}

/** Rewrites the line endings of `s` to `eol`. */
export function withLineEnding(s: string, eol: LineEnding): string {
  const lf = s.replaceAll("\r\n", "\n");
  return eol === "crlf" ? lf.replaceAll("\n", "\r\n") : lf;
}

function findAll(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) {
    found.push(i);
  }
  return found;
}

/** 1-based line number of character index `index`. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** The distinct line numbers of `positions` (in order), at most 10, then `...`. */
function listLines(text: string, positions: number[]): string {
  const lines: number[] = [];
  let line = 1;
  let from = 0;
  for (const position of positions) {
    for (
      let i = text.indexOf("\n", from);
      i !== -1 && i < position;
      i = text.indexOf("\n", i + 1)
    ) {
      line++;
      from = i + 1;
    }
    if (lines[lines.length - 1] === line) continue;
    if (lines.length === 10) return `${lines.join(", ")}, ...`;
    lines.push(line);
  }
  return lines.join(", ");
}

/** Collapses whitespace runs to one space, remembering where each kept character came from. */
function squashWhitespace(text: string): { text: string; origin: number[] } {
  let out = "";
  const origin: number[] = [];
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      if (!inSpace) {
        out += " ";
        origin.push(i);
      }
      inSpace = true;
    } else {
      out += ch;
      origin.push(i);
      inSpace = false;
    }
  }
  return { text: out, origin };
}

/** Why `old` did not match, with the closest near miss as a hint. */
function notFoundMessage(text: string, old: string): string {
  const base = "old_string was not found in the file";
  const oldLines = old.split("\n").filter((line) => line.trim() !== "");
  if (oldLines.length > 0 && oldLines.every((line) => /^\s*\d+\t/.test(line))) {
    return `${base}. It seems to include read_file line-number prefixes ("   12<TAB>"); ` +
      "pass only the text after the tab";
  }
  const noCr = text.replaceAll("\r", "");
  const oldNoCr = old.replaceAll("\r", "");
  const eolIndex = noCr.indexOf(oldNoCr);
  if (eolIndex !== -1) {
    return `${base}, but it matches at line ${lineAt(noCr, eolIndex)} if line endings are ` +
      "ignored: that region mixes CRLF and LF line endings. Edit a smaller region, or " +
      "normalize the file's line endings with bash";
  }
  const squashedOld = squashWhitespace(old).text.trim();
  if (squashedOld !== "") {
    const squashed = squashWhitespace(text);
    const at = squashed.text.indexOf(squashedOld);
    if (at !== -1) {
      const line = lineAt(text, squashed.origin[at]);
      return `${base}, but a match that differs only in whitespace exists at line ${line} ` +
        "(check indentation, tabs versus spaces, trailing spaces). Copy the exact text from " +
        "read_file output";
    }
  }
  return `${base}. Read the file again and copy the exact current text, including ` +
    "whitespace and indentation";
}

/**
 * Applies one exact replacement to `text`. LF line breaks in the strings are matched and
 * written as CRLF when the file uses CRLF; the strings as given are tried as a fallback.
 */
export function applyEdit(text: string, edit: TextEdit, eol: LineEnding): EditOutcome {
  const { old_string: oldString, new_string: newString } = edit;
  if (oldString === "") {
    return {
      ok: false,
      error: "old_string is empty; give the exact text to replace (use write_file to create " +
        "or overwrite a whole file)",
    };
  }
  if (oldString === newString) {
    return { ok: false, error: "old_string and new_string are identical; nothing would change" };
  }
  if (!newString.isWellFormed()) {
    return {
      ok: false,
      error: "new_string contains an unpaired UTF-16 surrogate (half of a character such as " +
        "an emoji), which cannot be written as text; send the whole character",
    };
  }
  const variants: [string, string][] = [[
    withLineEnding(oldString, eol),
    withLineEnding(newString, eol),
  ]];
  if (variants[0][0] !== oldString) variants.push([oldString, newString]);
  for (const [from, to] of variants) {
    const positions = findAll(text, from);
    if (positions.length === 0) continue;
    if (positions.length > 1 && !edit.replace_all) {
      return {
        ok: false,
        error: `old_string matches ${positions.length} times (at lines ` +
          `${listLines(text, positions)}); include more surrounding lines to make it unique, ` +
          "or set replace_all to true to replace every occurrence",
      };
    }
    if (from === to) {
      return {
        ok: false,
        error: "old_string and new_string differ only in line endings, which are preserved " +
          "automatically; nothing would change",
      };
    }
    let out = "";
    let last = 0;
    for (const position of positions) {
      out += text.slice(last, position) + to;
      last = position + from.length;
    }
    out += text.slice(last);
    return {
      ok: true,
      text: out,
      replacements: positions.length,
      start: positions[0],
      end: positions[0] + to.length,
    };
  }
  return { ok: false, error: notFoundMessage(text, oldString) };
}

/** Numbered lines (like `cat -n`) around `[start, end)` of `text`, at most `maxLines`. */
export function contextSnippet(
  text: string,
  range: { start: number; end: number; maxLines?: number },
): string {
  const { start, end, maxLines = 20 } = range;
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const first = Math.max(1, lineAt(text, start) - 3);
  const lastChanged = lineAt(text, Math.max(start, end - 1));
  const last = Math.min(lines.length, lastChanged + 3, first + maxLines - 1);
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    let line = lines[n - 1].replace(/\r$/, "");
    if (line.length > 200) line = `${sliceChars(line, 200)} [...]`;
    out.push(`${String(n).padStart(6)}\t${line}`);
  }
  return out.join("\n");
}

function fail(content: string, code: ToolErrorCode): ToolResult {
  return { content, isError: true, code };
}

/**
 * Reads `path`, applies `edits` in order in memory and writes the result atomically. Any
 * failing edit leaves the file untouched. `tool` selects the wording of messages.
 */
export async function editTextFile(
  ctx: ToolContext,
  request: { path: string; edits: TextEdit[]; tool: "edit_file" | "multi_edit" },
): Promise<ToolResult> {
  const { path, edits, tool } = request;
  const ws = ctx.workspace;
  const on = { workspace: ws };
  const target = await writeTarget(resolveToolPath(ctx.root, path), on);
  let info: FileInfo;
  let bytes: Uint8Array;
  try {
    info = await ws.stat(target);
    if (info.isDirectory) {
      return fail(`Cannot edit ${path}: it is a directory, not a file.`, "wrong_type");
    }
    if (!info.isFile) {
      // Reading a FIFO or device would block or never end; writing would replace the node.
      return fail(
        `Cannot edit ${path}: it is ${specialFileKind(info)}, not a regular file; the edit ` +
          "tools change regular files only.",
        "wrong_type",
      );
    }
    if (info.size > MAX_TEXT_FILE_BYTES) {
      return fail(
        `Cannot edit ${path}: it is ${formatSize(info.size)}, more than the ` +
          `${formatSize(MAX_TEXT_FILE_BYTES)} the edit tools load. Use bash (e.g. sed) instead.`,
        "too_large",
      );
    }
    bytes = await ws.readFile(target);
  } catch (error) {
    if (isNotFound(error)) {
      return fail(
        `Cannot edit ${path}: the file does not exist. Use write_file to create it.`,
        "not_found",
      );
    }
    return fail(`Cannot edit ${path}: ${fsErrorMessage(error, path)}.`, "io");
  }
  const decoded = decodeText(bytes);
  if (!decoded.ok) return fail(`Cannot edit ${path}: ${decoded.error}.`, "invalid_arguments");
  const { encoding, bom } = decoded.value;
  const before = decoded.value.text;
  const eol = detectLineEnding(before);
  let text = before;
  let replacements = 0;
  let first: { start: number; end: number } | undefined;
  for (const [index, edit] of edits.entries()) {
    const outcome = applyEdit(text, edit, eol);
    if (!outcome.ok) {
      return fail(
        tool === "multi_edit"
          ? `edits[${index}] failed: ${outcome.error}. No edits were applied; ${path} is ` +
            "unchanged."
          : `Cannot edit ${path}: ${outcome.error}.`,
        "conflict",
      );
    }
    text = outcome.text;
    replacements += outcome.replacements;
    first ??= { start: outcome.start, end: outcome.end };
  }
  if (text === before) {
    return fail(
      `Cannot edit ${path}: the edits cancel each other out, so the file would not change; ` +
        "it was not written.",
      "conflict",
    );
  }
  const readOnly = await readOnlyReason(target, info, on);
  if (readOnly) {
    return fail(
      `Cannot edit ${path}: ${readOnly}. The file is unchanged; if it should change, make it ` +
        "writable first (e.g. chmod u+w with bash).",
      "permission_denied",
    );
  }
  try {
    await atomicWrite(target, encodeText(text, encoding, bom), {
      ...on,
      mode: permissionBits(info),
    });
  } catch (error) {
    return fail(
      `Cannot write ${path}: ${fsErrorMessage(error, path)}. The file is unchanged.`,
      "io",
    );
  }
  const noun = replacements === 1 ? "replacement" : "replacements";
  const summary = tool === "multi_edit"
    ? `Edited ${path}: ${edits.length} ${edits.length === 1 ? "edit" : "edits"}, ` +
      `${replacements} ${noun}`
    : `Edited ${path}: ${replacements} ${noun}`;
  const content = tool === "edit_file" && first
    ? `${summary}\n${contextSnippet(text, { start: first.start, end: first.end })}`
    : summary;
  return {
    content,
    meta: { path: target, replacements, diff: unifiedDiff(path, before, text) },
  };
}
