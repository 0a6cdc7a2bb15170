/**
 * Adds, replaces and removes MCP server declarations in their files, touching nothing else:
 * in TOML only the `[[mcp.servers]]` block of that server changes, in `.mcp.json` only the
 * text of that server's entry (and the comma beside it); comments, formatting, key order and
 * values such as numbers beyond double precision stay byte for byte. Every edit is verified
 * by parsing the result and comparing it with the intended data before the file is replaced
 * atomically (a symlinked file through its target, so the link stays a link); on any doubt
 * nothing is written.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { applyEdits, type Edit, type Node, parseTree } from "jsonc-parser";
import { parse } from "smol-toml";
import type { McpServerDeclaration, McpSourceKind } from "./types.ts";
import { replaceFile } from "../../tools/fs/mod.ts";
import {
  DECLARATION_SETTINGS,
  McpConfigFileError,
  parseJsonFile,
  parseTomlFile,
} from "./config.ts";

/** The fields of a declaration that are written. */
export type DeclarationFields = Omit<McpServerDeclaration, "source">;

/** What an edit did. */
export interface EditResult {
  file: string;
  action: "added" | "replaced" | "removed";
}

/** An edit that could not be made safely; nothing was written. */
export class ConfigEditError extends McpConfigFileError {
  constructor(file: string, problem: string) {
    super({ file, problem, fix: "edit the file by hand; nothing was written" });
    this.name = "ConfigEditError";
  }
}

const FIELD_ORDER = ["name", "type", ...DECLARATION_SETTINGS] as const;

function ordered(fields: DeclarationFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of FIELD_ORDER) {
    const value = fields[key];
    if (value === undefined) continue;
    if (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) {
      continue;
    }
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  return out;
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/** TOML for a value of a declaration. JSON string escapes are a subset of TOML's. */
function tomlValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
    return entries.length ? `{ ${entries.join(", ")} }` : "{}";
  }
  throw new TypeError(`cannot write ${typeof value} to TOML`);
}

function tomlBlock(fields: DeclarationFields): string {
  const lines = ["[[mcp.servers]]"];
  for (const [key, value] of Object.entries(ordered(fields))) {
    lines.push(`${key} = ${tomlValue(value)}`);
  }
  return lines.join("\n") + "\n";
}

/** The file's text split from its byte-order mark, which an edit keeps. */
async function readText(file: string): Promise<{ bom: string; text: string } | undefined> {
  try {
    const raw = await Deno.readTextFile(file);
    const bom = raw.startsWith("\uFEFF") ? "\uFEFF" : "";
    return { bom, text: raw.slice(bom.length) };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new McpConfigFileError({
      file,
      problem: `cannot read the file: ${(error as Error).message}`,
      fix: "make it a readable file, or move it away",
    }, { cause: error });
  }
}

async function writeAtomic(file: string, text: string): Promise<void> {
  await replaceFile(file, new TextEncoder().encode(text), { newFileMode: 0o644 });
}

type Table = Record<string, unknown>;

function serversOf(root: Table): Table[] {
  const mcp = root.mcp as Table | undefined;
  const servers = mcp?.servers;
  return Array.isArray(servers) ? servers as Table[] : [];
}

function withServers(root: Table, servers: Table[]): Table {
  const copy = structuredClone(root);
  const mcp = { ...(copy.mcp as Table | undefined) };
  if (servers.length) mcp.servers = servers;
  else delete mcp.servers;
  if (Object.keys(mcp).length) copy.mcp = mcp;
  else delete copy.mcp;
  return copy;
}

const ARRAY_HEADER = /^\s*\[\[\s*mcp\s*\.\s*servers\s*\]\]\s*(#.*)?$/;
const SUB_HEADER = /^\s*\[\s*mcp\s*\.\s*servers\s*\.[^\]]+\]\s*(#.*)?$/;
const ANY_HEADER = /^\s*\[/;

/** Line ranges `[start, end)` of each `[[mcp.servers]]` block, in order. */
function serverBlocks(lines: string[]): [number, number][] {
  const blocks: [number, number][] = [];
  let inMultiline: string | undefined;
  let open: number | undefined;
  const close = (at: number) => {
    if (open === undefined) return;
    let end = at;
    // Comments and blank lines just above the next header belong to that header.
    while (end > open + 1 && /^\s*(#.*)?$/.test(lines[end - 1])) end--;
    blocks.push([open, end]);
    open = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (inMultiline) {
      if (line.split(inMultiline).length % 2 === 0) inMultiline = undefined;
      continue;
    }
    for (const quote of ['"""', "'''"]) {
      if (line.split(quote).length % 2 === 0) inMultiline = quote;
    }
    if (inMultiline) continue;
    if (ARRAY_HEADER.test(line)) {
      close(i);
      open = i;
    } else if (ANY_HEADER.test(line) && !SUB_HEADER.test(line)) {
      close(i);
    }
  }
  close(lines.length);
  return blocks;
}

function verify(text: string, expected: Table, file: string): void {
  let parsed: Table;
  try {
    parsed = parse(text) as Table;
  } catch (error) {
    throw new ConfigEditError(
      file,
      `editing it would make it invalid TOML (${(error as Error).message.split("\n")[0]})`,
    );
  }
  if (
    !isDeepStrictEqual(JSON.parse(JSON.stringify(parsed)), JSON.parse(JSON.stringify(expected)))
  ) {
    throw new ConfigEditError(
      file,
      "its MCP servers cannot be edited safely (an unusual layout, e.g. inline tables)",
    );
  }
}

async function editToml(
  file: string,
  name: string,
  fields: DeclarationFields | undefined,
): Promise<EditResult | undefined> {
  const read = await readText(file);
  const original = read?.text ?? "";
  const root = parseTomlFile(original, file) as Table;
  const servers = serversOf(root);
  const index = servers.findIndex((s) => s.name === name);
  if (index < 0 && !fields) return undefined;
  const newline = original.includes("\r\n") ? "\r\n" : "\n";
  const lines = original.split(/\r?\n/);
  const block = fields ? tomlBlock(fields).replace(/\n/g, newline) : "";
  let text: string;
  let expectedServers: Table[];
  let action: EditResult["action"];
  if (index >= 0) {
    const blocks = serverBlocks(lines);
    if (blocks.length !== servers.length) {
      throw new ConfigEditError(file, `the [[mcp.servers]] table of "${name}" cannot be found`);
    }
    const [start, end] = blocks[index];
    const replacement = fields ? block.split(newline).slice(0, -1) : [];
    text = [...lines.slice(0, start), ...replacement, ...lines.slice(end)].join(newline);
    if (!fields) {
      // Drop the blank line the removed block leaves between its neighbours.
      text = text.replace(new RegExp(`(${newline}){3,}`, "g"), newline + newline);
    }
    expectedServers = fields
      ? servers.map((s, i) => i === index ? ordered(fields) : s)
      : servers.filter((_, i) => i !== index);
    action = fields ? "replaced" : "removed";
  } else {
    const base = original === "" || original.endsWith(newline) ? original : original + newline;
    text = base === "" ? block : base + newline + block;
    expectedServers = [...servers, ordered(fields!)];
    action = "added";
  }
  verify(text, withServers(root, expectedServers), file);
  await writeAtomic(file, (read?.bom ?? "") + text);
  return { file, action };
}

/** How an object lays out its entries, so inserted text looks like its neighbours. */
interface JsonLayout {
  /** Whether entries sit on lines of their own (else they share one line). */
  multiline: boolean;
  /** Indentation of the object's entries. */
  indent: string;
  /** One level of indentation, for the inside of a new value. */
  unit: string;
  /** What separates two entries (the comma included), and a key from its value. */
  comma: string;
  colon: string;
  eol: string;
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** Whether only whitespace precedes `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return text.slice(start, offset).trim() === "";
}

function jsonLayout(text: string, object: Node): JsonLayout {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const props = object.children ?? [];
  const last = props.at(-1);
  const outer = lineIndent(text, object.offset);
  // With no entry to copy from, an object is laid out like the document: one line or many.
  const multiline = last ? startsLine(text, last.offset) : /\n\s*\S/.test(text.trim());
  const firstIndented = /\n([ \t]+)\S/.exec(text)?.[1];
  let unit = firstIndented === undefined
    ? "  "
    : firstIndented.startsWith("\t")
    ? "\t"
    : firstIndented;
  let indent = outer + unit;
  if (last && multiline) {
    indent = lineIndent(text, last.offset);
    if (indent.startsWith(outer) && indent.length > outer.length) unit = indent.slice(outer.length);
  }
  const prev = props.at(-2);
  const comma = prev && last
    ? text.slice(prev.offset + prev.length, last.offset)
    : multiline
    ? `,${eol}${indent}`
    : ",";
  const key = last?.children?.[0];
  const value = last?.children?.[1];
  const colon = key && value
    ? text.slice(key.offset + key.length, value.offset)
    : multiline
    ? ": "
    : ":";
  return { multiline, indent, unit, comma, colon, eol };
}

function jsonValue(value: unknown, indent: string, layout: JsonLayout): string {
  if (!layout.multiline) return JSON.stringify(value);
  return JSON.stringify(value, null, layout.unit).split("\n").join(layout.eol + indent);
}

/** The property node of `key` in an object node (the last one, as JSON.parse reads it). */
function propertyOf(object: Node, key: string): Node | undefined {
  return object.children?.findLast((p: Node) => p.children?.[0]?.value === key);
}

/**
 * The one edit that sets `key` of `object` to `value` (or removes it), laid out like its
 * neighbours; the text around it is left as it is.
 */
function propertyEdit(
  text: string,
  object: Node,
  { key, value }: { key: string; value: unknown },
): Edit | undefined {
  const props = object.children ?? [];
  const prop = propertyOf(object, key);
  const open = object.offset + 1;
  const close = object.offset + object.length - 1;
  if (value === undefined) {
    if (!prop) return undefined;
    const i = props.indexOf(prop);
    const next = props[i + 1];
    const prev = props[i - 1];
    // The next entry moves into this one's place, keeping this one's indentation; the last
    // entry takes the comma before it along; the only one leaves an empty object.
    if (next) return { offset: prop.offset, length: next.offset - prop.offset, content: "" };
    const end = prop.offset + prop.length;
    if (prev) {
      const from = prev.offset + prev.length;
      return { offset: from, length: end - from, content: "" };
    }
    return { offset: open, length: close - open, content: "" };
  }
  const layout = jsonLayout(text, object);
  if (prop) {
    const old = prop.children![1];
    const indent = lineIndent(text, prop.offset);
    return { offset: old.offset, length: old.length, content: jsonValue(value, indent, layout) };
  }
  const entry = `${JSON.stringify(key)}${layout.colon}${jsonValue(value, layout.indent, layout)}`;
  const last = props.at(-1);
  if (last) {
    return { offset: last.offset + last.length, length: 0, content: layout.comma + entry };
  }
  const outer = lineIndent(text, object.offset);
  const content = layout.multiline
    ? `${layout.eol}${layout.indent}${entry}${layout.eol}${outer}`
    : entry;
  return { offset: open, length: close - open, content };
}

async function editJson(
  file: string,
  name: string,
  fields: DeclarationFields | undefined,
): Promise<EditResult | undefined> {
  const read = await readText(file);
  const original = read?.text ?? "";
  const entry = fields ? (({ name: _name, ...rest }) => rest)(ordered(fields)) : undefined;
  if (original.trim() === "") {
    if (!entry) return undefined;
    const text = JSON.stringify({ mcpServers: { [name]: entry } }, null, 2) + "\n";
    await writeAtomic(file, (read?.bom ?? "") + text);
    return { file, action: "added" };
  }
  const root = parseJsonFile(original, file);
  if (typeof root !== "object" || root === null || Array.isArray(root)) {
    throw new ConfigEditError(file, "it must hold a JSON object");
  }
  const servers = (root as Table).mcpServers;
  if (
    servers !== undefined &&
    (typeof servers !== "object" || servers === null || Array.isArray(servers))
  ) {
    throw new ConfigEditError(file, `its "mcpServers" must be an object`);
  }
  const exists = servers !== undefined && Object.hasOwn(servers, name);
  if (!entry && !exists) return undefined;
  const tree = parseTree(original, [], { disallowComments: true, allowTrailingComma: false });
  const serversNode = tree && propertyOf(tree, "mcpServers")?.children?.[1];
  const edit = serversNode
    ? propertyEdit(original, serversNode, { key: name, value: entry })
    : tree && propertyEdit(original, tree, { key: "mcpServers", value: { [name]: entry } });
  if (!edit) throw new ConfigEditError(file, `the entry of "${name}" cannot be found`);
  const text = applyEdits(original, [edit]);
  const expected = { ...(servers as Table | undefined) };
  if (entry) expected[name] = entry;
  else delete expected[name];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  // Both sides go through JSON.parse, so values it cannot hold exactly compare alike; the
  // text of everything but this entry was not touched.
  if (!isDeepStrictEqual(parsed, { ...(root as Table), mcpServers: expected })) {
    throw new ConfigEditError(file, `the entry of "${name}" cannot be edited safely`);
  }
  await writeAtomic(file, (read?.bom ?? "") + text);
  return { file, action: entry ? (exists ? "replaced" : "added") : "removed" };
}

/** Adds a declaration to `file`, or replaces the one with the same name there. */
export function addDeclaration(
  file: string,
  kind: McpSourceKind,
  fields: DeclarationFields,
): Promise<EditResult> {
  const edit = kind === "mcp_json" ? editJson : editToml;
  return edit(file, fields.name, fields) as Promise<EditResult>;
}

/** Removes the declaration `name` from `file`; undefined when it is not there. */
export function removeDeclaration(
  file: string,
  kind: McpSourceKind,
  name: string,
): Promise<EditResult | undefined> {
  return kind === "mcp_json" ? editJson(file, name, undefined) : editToml(file, name, undefined);
}
