/**
 * Small, format-preserving edits of TOML files the user owns: set one key in one table and
 * remove retired keys. Comments, order and everything else stay byte for byte; every result
 * is re-parsed before it is written, and files are replaced atomically.
 *
 * @module
 */
import { parse } from "smol-toml";
import { ConfigError } from "./errors.ts";
import { parseConfigToml, readConfigText } from "./files.ts";
import { replaceFile } from "../../tools/fs/mod.ts";

/** Keys of the old multi-threshold context design, removed on startup (spec §3.6). */
export const LEGACY_CONTEXT_KEYS: readonly string[] = [
  "soft_compact_ratio",
  "tool_result_snip_ratio",
  "compact_force_ratio",
  "cold_resume_prune",
  "context_editing",
];

/** One value {@linkcode setTomlValue} sets. */
export interface TomlValueEdit {
  /** The table, e.g. `agent`. */
  table: string;
  key: string;
  /** The value as TOML source, e.g. `0.7` or `"text"`. */
  literal: string;
  /** The file the text came from, for error messages. */
  file?: string;
}

/**
 * Returns `text` with `key = literal` set in `[table]`: the existing value is replaced, or the
 * key is added where the table is written (after the last key of its `[table]` section, or as
 * another `table.key` dotted line), or an `[table]` section is appended. Keys may be quoted
 * or dotted. `literal` is TOML source. Throws {@link ConfigError} (naming `file` and the line)
 * when the text is not TOML or the table cannot be extended in place.
 */
export function setTomlValue(text: string, edit: TomlValueEdit): string {
  const { table, key, literal, file } = edit;
  const doc = parseConfigToml(text, file);
  const out = editValue(text, doc, edit);
  // The edit must change exactly that one value: anything else would be a scanner mistake
  // written over the user's file.
  const expected = {
    ...doc,
    [table]: { ...(doc[table] as object), [key]: parse(`v = ${literal}`).v },
  };
  if (canonical(parse(out)) !== canonical(expected)) {
    throw new Error(`editing ${file ?? "the TOML text"} to set ${table}.${key} went wrong`);
  }
  return out;
}

function editValue(text: string, doc: Record<string, unknown>, edit: TomlValueEdit): string {
  const { table, key, literal, file } = edit;
  const statements = scanToml(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const current = doc[table];
  const definedAt = statements.find((s) => samePath(s.path, [table]) || s.path[0] === table);
  if (current !== undefined && !isTable(current)) {
    const at = definedAt ? lineOf(text, definedAt.start) : undefined;
    throw new ConfigError({
      file,
      line: at,
      problem: `${tomlKey(table)} is ${
        Array.isArray(current) ? "a list" : "a value"
      }, not a table, so ${key} cannot be set in it`,
      fix: `replace it with an [${tomlKey(table)}] section`,
    });
  }

  const existing = statements.find((s) => s.kind === "keyval" && samePath(s.path, [table, key]));
  if (existing) {
    return splice(text, { from: existing.valueStart, to: existing.valueEnd }, literal);
  }

  const inline = statements.find((s) => s.kind === "keyval" && samePath(s.path, [table]));
  if (inline) {
    const line = lineOf(text, inline.start);
    throw new ConfigError({
      file,
      line,
      problem: `the ${tomlKey(table)} table is written inline (line ${line}: ` +
        `${lineText(text, inline.start).trim()}), and an inline table cannot be extended ` +
        "without rewriting it",
      fix: `add ${tomlKey(key)} = ${literal} inside its braces by hand, or turn it into an ` +
        `[${tomlKey(table)}] section`,
    });
  }

  const assignment = (indent: string, prefix: string): string =>
    `${indent}${prefix}${tomlKey(key)} = ${literal}`;
  const header = statements.findIndex((s) => s.kind === "table" && samePath(s.path, [table]));
  if (header >= 0) {
    let last = statements[header];
    for (const s of statements.slice(header + 1)) {
      if (s.kind !== "keyval") break;
      last = s;
    }
    const indent = last.kind === "keyval" ? indentOf(text, last.start) : "";
    return insertAfterLine(text, last.end, { line: assignment(indent, ""), eol });
  }
  // A table made of dotted keys (`agent.temperature = 0`) cannot be reopened by a header.
  const dotted = statements.filter((s) =>
    s.kind === "keyval" && s.section.length === 0 && s.path.length > 1 && s.path[0] === table
  );
  if (dotted.length) {
    const last = dotted[dotted.length - 1];
    return insertAfterLine(text, last.end, {
      line: assignment(indentOf(text, last.start), `${tomlKey(table)}.`),
      eol,
    });
  }
  const base = text === "" || text.endsWith("\n") ? text : `${text}${eol}`;
  return `${base}${base.trim() ? eol : ""}[${tomlKey(table)}]${eol}${assignment("", "")}${eol}`;
}

/**
 * Removes assignments of the legacy keys where the loader ignores them (top level, `[agent]`,
 * `[[providers]]`); returns the new text and what went, in file order. Text that is not TOML
 * is returned unchanged.
 */
export function removeLegacyKeys(text: string): { text: string; removed: string[] } {
  try {
    parse(text);
  } catch {
    return { text, removed: [] };
  }
  const removed: string[] = [];
  let out = text;
  // From the end, so earlier offsets stay valid.
  for (const s of scanToml(text).reverse()) {
    if (s.kind !== "keyval") continue;
    const key = s.path[s.path.length - 1];
    if (typeof key !== "string" || !LEGACY_CONTEXT_KEYS.includes(key)) continue;
    const parent = s.path.slice(0, -1);
    const ignored = parent.length === 0 || samePath(parent, ["agent"]) ||
      (parent.length === 2 && parent[0] === "providers" && typeof parent[1] === "number");
    if (!ignored) continue;
    const lineStart = text.lastIndexOf("\n", s.start - 1) + 1;
    // TOML gives every statement lines of its own, so whole lines go, comment included.
    out = out.slice(0, lineStart) + out.slice(s.end);
    removed.unshift(key);
  }
  return { text: out, removed };
}

/**
 * Writes `text` to `path` atomically after checking it parses as TOML. A symbolic link is
 * followed: the file it points to is replaced (keeping its mode) and the link stays a link,
 * so a config kept in a dotfiles repository is updated there.
 */
export async function writeTomlFile(path: string, text: string): Promise<void> {
  parse(text);
  await replaceFile(path, new TextEncoder().encode(text), {
    newFileMode: 0o644,
    makeParents: true,
  });
}

/**
 * Removes the legacy context keys from config files on startup. Returns one notice per file
 * changed or that could not be changed; runtime ignores the keys either way.
 */
export async function scrubLegacyKeys(paths: readonly string[]): Promise<string[]> {
  const notices: string[] = [];
  for (const path of paths) {
    let text: string | undefined;
    try {
      // Strict UTF-8: a lenient read would write U+FFFD over bytes it could not decode.
      text = await readConfigText(path);
    } catch {
      continue;
    }
    if (text === undefined) continue;
    const { text: cleaned, removed } = removeLegacyKeys(text);
    if (removed.length === 0) continue;
    try {
      await writeTomlFile(path, cleaned);
      notices.push(`removed retired context setting(s) ${removed.join(", ")} from ${path}`);
    } catch (error) {
      notices.push(
        `${path} has retired context setting(s) ${removed.join(", ")} (ignored); ` +
          `they could not be removed: ${(error as Error).message}`,
      );
    }
  }
  return notices;
}

// ---------------------------------------------------------------------------------------
// A statement-level scanner for documents that already parsed

/** One top-level statement: a table header or a key/value pair, with its source span. */
interface Statement {
  kind: "table" | "array" | "keyval";
  /** The section it sits in; `[[array]]` elements are numbered. */
  section: (string | number)[];
  /** A header's table, or the section plus the (dotted) key of a key/value pair. */
  path: (string | number)[];
  /** Offset of the first character of the key or header. */
  start: number;
  /** The value's span, trailing spaces excluded (headers: the end of the header). */
  valueStart: number;
  valueEnd: number;
  /** Offset just past the statement's last line, newline included. */
  end: number;
}

function scanToml(text: string): Statement[] {
  const out: Statement[] = [];
  const arrays = new Map<string, number>();
  let section: (string | number)[] = [];
  let pos = 0;

  const skipSpaces = () => {
    while (text[pos] === " " || text[pos] === "\t") pos++;
  };
  const skipBlank = () => {
    while (pos < text.length) {
      const c = text[pos];
      if (c === " " || c === "\t" || c === "\r" || c === "\n") pos++;
      else if (c === "#") { while (pos < text.length && text[pos] !== "\n") pos++; }
      else break;
    }
  };
  const basicString = (): string => {
    let value = "";
    pos++;
    while (pos < text.length && text[pos] !== '"') {
      if (text[pos] === "\\") {
        const raw = text.slice(pos, pos + 10);
        const unicode = /^\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8}))/.exec(raw);
        const simple: Record<string, string> = {
          b: "\b",
          t: "\t",
          n: "\n",
          f: "\f",
          r: "\r",
          e: "\x1b",
          '"': '"',
          "\\": "\\",
        };
        if (unicode) {
          value += String.fromCodePoint(parseInt(unicode[1] ?? unicode[2], 16));
          pos += unicode[0].length;
        } else {
          value += simple[text[pos + 1]] ?? text[pos + 1];
          pos += 2;
        }
      } else value += text[pos++];
    }
    pos++;
    return value;
  };
  const literalString = (): string => {
    const end = text.indexOf("'", pos + 1);
    const value = text.slice(pos + 1, end);
    pos = end + 1;
    return value;
  };
  const key = (): string[] => {
    const keys: string[] = [];
    while (pos < text.length) {
      skipSpaces();
      if (text[pos] === '"') keys.push(basicString());
      else if (text[pos] === "'") keys.push(literalString());
      else {
        const m = /^[A-Za-z0-9_-]+/.exec(text.slice(pos, pos + 256));
        if (!m) break;
        keys.push(m[0]);
        pos += m[0].length;
      }
      skipSpaces();
      if (text[pos] !== ".") break;
      pos++;
    }
    return keys;
  };
  const value = (): void => {
    if (text.startsWith('"""', pos) || text.startsWith("'''", pos)) {
      const quote = text.slice(pos, pos + 3);
      pos += 3;
      while (pos < text.length && !text.startsWith(quote, pos)) {
        pos += quote === '"""' && text[pos] === "\\" ? 2 : 1;
      }
      pos += 3;
      // Up to two quotes may end the content right before the closing delimiter.
      for (let k = 0; k < 2 && text[pos] === quote[0]; k++) pos++;
    } else if (text[pos] === '"') basicString();
    else if (text[pos] === "'") literalString();
    else if (text[pos] === "[" || text[pos] === "{") {
      const close = text[pos] === "[" ? "]" : "}";
      pos++;
      while (true) {
        skipBlank();
        if (pos >= text.length) return;
        if (text[pos] === close) {
          pos++;
          return;
        }
        if (close === "}") {
          key();
          skipSpaces();
          pos++; // "="
          skipSpaces();
        }
        value();
        skipBlank();
        if (text[pos] === ",") pos++;
      }
    } else {
      // Scalars; a date-time may contain a space, so trailing spaces are trimmed instead.
      while (pos < text.length && !",]}#\r\n".includes(text[pos])) pos++;
      while (text[pos - 1] === " " || text[pos - 1] === "\t") pos--;
    }
  };
  const lineEnd = (): number => {
    const nl = text.indexOf("\n", pos);
    return nl < 0 ? text.length : nl + 1;
  };

  while (true) {
    skipBlank();
    if (pos >= text.length) break;
    const start = pos;
    if (text[pos] === "[") {
      const isArray = text[pos + 1] === "[";
      pos += isArray ? 2 : 1;
      const keys = key();
      const path: (string | number)[] = [];
      keys.forEach((k, i) => {
        path.push(k);
        const id = JSON.stringify(path);
        if (isArray && i === keys.length - 1) {
          const n = (arrays.get(id) ?? -1) + 1;
          arrays.set(id, n);
          section = [...path, n];
        } else if (arrays.has(id)) path.push(arrays.get(id)!);
      });
      if (!isArray) section = path;
      pos += isArray ? 2 : 1;
      out.push({
        kind: isArray ? "array" : "table",
        section,
        path: isArray ? section.slice(0, -1) : section,
        start,
        valueStart: pos,
        valueEnd: pos,
        end: lineEnd(),
      });
      pos = out[out.length - 1].end;
    } else {
      const keys = key();
      skipSpaces();
      pos++; // "="
      skipSpaces();
      const valueStart = pos;
      value();
      const valueEnd = pos;
      out.push({
        kind: "keyval",
        section,
        path: [...section, ...keys],
        start,
        valueStart,
        valueEnd,
        end: lineEnd(),
      });
      pos = out[out.length - 1].end;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Helpers

/** JSON with sorted keys, so two documents compare regardless of key order. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_, v) =>
      isTable(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : v,
  );
}

function samePath(a: readonly (string | number)[], b: readonly (string | number)[]): boolean {
  return a.length === b.length && a.every((seg, i) => seg === b[i]);
}

function isTable(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** A key as TOML source: bare when it can be, else a quoted string. */
function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

function splice(text: string, { from, to }: { from: number; to: number }, insert: string): string {
  return text.slice(0, from) + insert + text.slice(to);
}

/** Inserts `line` at `offset`, the start of a line (or the end of a text without a final newline). */
function insertAfterLine(
  text: string,
  offset: number,
  { line, eol }: { line: string; eol: string },
): string {
  const needsBreak = offset > 0 && text[offset - 1] !== "\n";
  return splice(text, { from: offset, to: offset }, `${needsBreak ? eol : ""}${line}${eol}`);
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text[i] === "\n") line++;
  return line;
}

function lineText(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const nl = text.indexOf("\n", offset);
  return text.slice(start, nl < 0 ? text.length : nl).replace(/\r$/, "");
}

function indentOf(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

// ---------------------------------------------------------------------------------------
// Edits `reasonix setup` makes: a top-level key and a whole `[[array]]` element

/** One top-level value {@linkcode setRootValue} sets. */
export interface TomlRootEdit {
  key: string;
  /** The value as TOML source, e.g. `"openai"`. */
  literal: string;
  /** The file the text came from, for error messages. */
  file?: string;
}

/**
 * Returns `text` with the top-level `key = literal`: the existing value is replaced, or the
 * line is added after the last top-level key, else above the first table (and the comment
 * lines right above it, which belong to that table). Everything else stays byte for byte.
 */
export function setRootValue(text: string, edit: TomlRootEdit): string {
  const { key, literal, file } = edit;
  const doc = parseConfigToml(text, file);
  const statements = scanToml(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const line = `${tomlKey(key)} = ${literal}`;
  let out: string;
  const existing = statements.find((s) => s.kind === "keyval" && samePath(s.path, [key]));
  const roots = statements.filter((s) => s.kind === "keyval" && s.section.length === 0);
  const header = statements.find((s) => s.kind !== "keyval");
  if (existing) {
    out = splice(text, { from: existing.valueStart, to: existing.valueEnd }, literal);
  } else if (roots.length > 0) {
    out = insertAfterLine(text, roots[roots.length - 1].end, { line, eol });
  } else if (header) {
    let at = text.lastIndexOf("\n", header.start - 1) + 1;
    // Comment lines directly above the header describe that table: stay above them.
    while (at > 0) {
      const prev = text.lastIndexOf("\n", at - 2) + 1;
      if (!text.slice(prev, at).trimStart().startsWith("#")) break;
      at = prev;
    }
    out = splice(text, { from: at, to: at }, `${line}${eol}${eol}`);
  } else {
    const base = text === "" || text.endsWith("\n") ? text : `${text}${eol}`;
    out = `${base}${line}${eol}`;
  }
  const expected = { ...doc, [key]: parse(`v = ${literal}`).v };
  if (canonical(parse(out)) !== canonical(expected)) {
    throw new Error(`editing ${file ?? "the TOML text"} to set ${key} went wrong`);
  }
  return out;
}

/** One `[[array]]` element {@linkcode upsertArrayTable} writes. */
export interface TomlArrayTableEdit {
  /** The array of tables, e.g. `providers`. */
  array: string;
  /** The element to replace: the first whose `key` equals `value` (a string). */
  match: { key: string; value: string };
  /** The element as TOML source: one `[[array]]` header and its keys (sub-tables allowed). */
  block: string;
  /** The file the text came from, for error messages. */
  file?: string;
}

/**
 * Returns `text` with the element of `[[array]]` whose `match.key` is `match.value` replaced
 * by `block`, or `block` appended when there is none. Only that element's own lines change:
 * comments, blank lines and every other table stay as they were.
 */
export function upsertArrayTable(text: string, edit: TomlArrayTableEdit): string {
  const { array, match, block, file } = edit;
  const doc = parseConfigToml(text, file);
  const added = (parseConfigToml(block)[array] as unknown[] | undefined)?.[0];
  if (added === undefined) throw new TypeError(`the block is not an [[${array}]] element`);
  const current = doc[array];
  const statements = scanToml(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const own = block.replace(/\r?\n/g, eol).replace(/(\r?\n)*$/, eol);
  if (current !== undefined && !Array.isArray(current)) {
    const at = statements.find((s) => s.path[0] === array);
    throw new ConfigError({
      file,
      line: at ? lineOf(text, at.start) : undefined,
      problem: `${tomlKey(array)} is a table or a value, not a list of [[${array}]] tables`,
      fix: `rename it, or turn it into [[${tomlKey(array)}]] sections`,
    });
  }
  const inline = statements.find((s) => s.kind === "keyval" && samePath(s.path, [array]));
  if (inline) {
    throw new ConfigError({
      file,
      line: lineOf(text, inline.start),
      problem: `${tomlKey(array)} is written inline, and an inline list cannot be extended ` +
        "without rewriting it",
      fix: `turn it into [[${tomlKey(array)}]] sections`,
    });
  }
  const list = (current ?? []) as Record<string, unknown>[];
  const index = list.findIndex((t) => isTable(t) && t[match.key] === match.value);
  let out: string;
  const expectedList = [...list];
  if (index >= 0) {
    const inElement = (s: Statement) => s.section[0] === array && s.section[1] === index;
    const first = statements.findIndex((s) => s.kind === "array" && inElement(s));
    let last = first;
    while (last + 1 < statements.length && inElement(statements[last + 1])) last++;
    out = splice(text, { from: statements[first].start, to: statements[last].end }, own);
    expectedList[index] = added as Record<string, unknown>;
  } else {
    const base = text === "" || text.endsWith("\n") ? text : `${text}${eol}`;
    out = `${base}${base.trim() ? eol : ""}${own}`;
    expectedList.push(added as Record<string, unknown>);
  }
  if (canonical(parse(out)) !== canonical({ ...doc, [array]: expectedList })) {
    throw new Error(`editing ${file ?? "the TOML text"} to write [[${array}]] went wrong`);
  }
  return out;
}
