/**
 * Adds, replaces and removes MCP server declarations in their files, touching nothing else:
 * in TOML only the `[[mcp.servers]]` block of that server changes (comments and the rest of
 * the file stay byte for byte), `.mcp.json` is rewritten with two-space indentation. Every
 * edit is verified by parsing the result and comparing it with the intended data before the
 * file is replaced atomically; on any doubt nothing is written.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { parse } from "smol-toml";
import type { McpServerDeclaration, McpSourceKind } from "./types.ts";
import { DECLARATION_SETTINGS } from "./config.ts";

/** The fields of a declaration that are written. */
export type DeclarationFields = Omit<McpServerDeclaration, "source">;

/** What an edit did. */
export interface EditResult {
  file: string;
  action: "added" | "replaced" | "removed";
}

/** An edit that could not be made safely; nothing was written. */
export class ConfigEditError extends Error {
  constructor(message: string) {
    super(message);
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

async function readText(file: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

async function writeAtomic(file: string, text: string): Promise<void> {
  let mode: number | undefined;
  try {
    mode = (await Deno.stat(file)).mode ?? undefined;
  } catch {
    mode = undefined;
  }
  const temp = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temp, text, { createNew: true, mode: mode ?? 0o644 });
    if (mode !== undefined && Deno.build.os !== "windows") await Deno.chmod(temp, mode & 0o7777);
    await Deno.rename(temp, file);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
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
      `editing ${file} would make it invalid TOML (${(error as Error).message.split("\n")[0]}); ` +
        "nothing was written. Edit the file by hand.",
    );
  }
  if (
    !isDeepStrictEqual(JSON.parse(JSON.stringify(parsed)), JSON.parse(JSON.stringify(expected)))
  ) {
    throw new ConfigEditError(
      `cannot edit the MCP servers of ${file} safely (an unusual layout, e.g. inline tables); ` +
        "nothing was written. Edit the file by hand.",
    );
  }
}

async function editToml(
  file: string,
  name: string,
  fields: DeclarationFields | undefined,
): Promise<EditResult | undefined> {
  const original = await readText(file) ?? "";
  let root: Table;
  try {
    root = parse(original) as Table;
  } catch (error) {
    throw new ConfigEditError(
      `${file} is not valid TOML (${(error as Error).message.split("\n")[0]}); fix it first`,
    );
  }
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
      throw new ConfigEditError(
        `cannot find the [[mcp.servers]] table of "${name}" in ${file}; edit the file by hand`,
      );
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
  await writeAtomic(file, text);
  return { file, action };
}

async function editJson(
  file: string,
  name: string,
  fields: DeclarationFields | undefined,
): Promise<EditResult | undefined> {
  const original = await readText(file);
  let root: Table = {};
  if (original !== undefined && original.trim() !== "") {
    try {
      root = JSON.parse(original);
    } catch (error) {
      throw new ConfigEditError(
        `${file} is not valid JSON (${(error as Error).message}); fix it first`,
      );
    }
  }
  if (typeof root !== "object" || root === null || Array.isArray(root)) {
    throw new ConfigEditError(`${file} must hold a JSON object`);
  }
  const servers = { ...(root.mcpServers as Table | undefined) };
  const exists = Object.hasOwn(servers, name);
  if (!fields && !exists) return undefined;
  if (fields) {
    const { name: _name, ...rest } = ordered(fields);
    servers[name] = rest;
  } else {
    delete servers[name];
  }
  const next = { ...root, mcpServers: servers };
  await writeAtomic(file, JSON.stringify(next, null, 2) + "\n");
  return { file, action: fields ? (exists ? "replaced" : "added") : "removed" };
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
