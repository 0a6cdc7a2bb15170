/**
 * Reads and rewrites the tool contract, `docs/TOOL_CONTRACT.md` and its Chinese twin
 * `docs/TOOL_CONTRACT.zh-CN.md`. Each `## \`tool\`` section holds generated parts that must
 * equal the code: the `- Kind:` line, the description exactly as the model reads it (a
 * ```text block) and the canonical JSON Schema (a ```json block). The prose around them is
 * hand-written, in each document's language. Shared by the drift test and the regeneration
 * script (`tests/contract/`, where the tools a real run offers can be assembled).
 *
 * @module
 */
import { canonicalize } from "../canonical.ts";
import type { Tool } from "../types.ts";

/** The command that rewrites the documents' generated parts from the code. */
export const REGENERATE_COMMAND =
  "deno run --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys " +
  "tests/contract/gen_contract.ts";

/** The English contract document, relative to this module. */
export const CONTRACT_URL: URL = new URL("../../docs/TOOL_CONTRACT.md", import.meta.url);
/** The Chinese twin: the same sections and generated blocks, Chinese prose. */
export const CONTRACT_ZH_URL: URL = new URL("../../docs/TOOL_CONTRACT.zh-CN.md", import.meta.url);
/** Both documents, English first. */
export const CONTRACT_URLS: readonly URL[] = [CONTRACT_URL, CONTRACT_ZH_URL];

/** One `## \`tool_name\`` section of the document. */
export interface ContractSection {
  name: string;
  /** Value of the `- Kind:` line (`read-only` or `writer`), if present. */
  kind?: string;
  /** Text of the first ```text block (the description the model reads), if present. */
  description?: string;
  /** Text of the first ```json block, if present. */
  json?: string;
}

const HEADING = /^## `([^`]+)`[ \t]*$/gm;
const KIND = /^- Kind: (.*)$/m;
const TEXT_BLOCK = /^```text\n([\s\S]*?)\n```$/m;
const JSON_BLOCK = /^```json\n([\s\S]*?)\n```$/m;

interface RawSection {
  name: string;
  start: number;
  end: number;
}

function sections(doc: string): RawSection[] {
  const found = [...doc.matchAll(HEADING)];
  return found.map((m, i) => {
    const start = m.index! + m[0].length;
    const next = doc.slice(start).search(/^#{1,2} /m);
    const end = i + 1 < found.length
      ? found[i + 1].index!
      : next === -1
      ? doc.length
      : start + next;
    return { name: m[1], start, end };
  });
}

/** Parses the tool sections of the document. */
export function parseContract(doc: string): ContractSection[] {
  return sections(doc).map(({ name, start, end }) => {
    const body = doc.slice(start, end);
    return {
      name,
      kind: body.match(KIND)?.[1]?.trim(),
      description: body.match(TEXT_BLOCK)?.[1],
      json: body.match(JSON_BLOCK)?.[1],
    };
  });
}

/** The canonical pretty JSON of a tool's schema, as the document shows it. */
export function schemaJson(tool: Tool): string {
  return JSON.stringify(canonicalize(tool.schema), null, 2);
}

/** The `- Kind:` value for a tool: its static kind, which decides whether calls run in parallel. */
export function kindOf(tool: Tool): string {
  return tool.readOnly ? "read-only" : "writer";
}

/** How one section differs from the code, for the drift test's messages. */
export interface ContractDrift {
  name: string;
  part: "section" | "kind" | "description" | "json";
}

/** Result of {@linkcode regenerateContract}. */
export interface RegeneratedContract {
  doc: string;
  /** Tools with no section in the document. */
  missing: string[];
  /** Sections that name no offered tool. */
  unknown: string[];
}

/** Every difference between the document and `tools`: missing sections, stale generated parts. */
export function contractDrift(doc: string, tools: readonly Tool[]): ContractDrift[] {
  const parsed = new Map(parseContract(doc).map((s) => [s.name, s]));
  const drift: ContractDrift[] = [];
  for (const tool of tools) {
    const section = parsed.get(tool.name);
    if (!section) {
      drift.push({ name: tool.name, part: "section" });
      continue;
    }
    if (section.kind !== kindOf(tool)) drift.push({ name: tool.name, part: "kind" });
    if (section.description !== tool.description) {
      drift.push({ name: tool.name, part: "description" });
    }
    if (section.json !== schemaJson(tool)) drift.push({ name: tool.name, part: "json" });
  }
  return drift;
}

/**
 * Rewrites every section's kind line, description block and JSON block from `tools`. A
 * missing description block goes before the JSON block.
 */
export function regenerateContract(doc: string, tools: readonly Tool[]): RegeneratedContract {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const raw = sections(doc);
  const unknown = raw.filter((s) => !byName.has(s.name)).map((s) => s.name);
  const present = new Set(raw.map((s) => s.name));
  const missing = tools.filter((t) => !present.has(t.name)).map((t) => t.name);
  let out = "";
  let last = 0;
  for (const section of raw) {
    const tool = byName.get(section.name);
    if (!tool) continue;
    let body = doc.slice(section.start, section.end);
    body = KIND.test(body)
      ? body.replace(KIND, `- Kind: ${kindOf(tool)}`)
      : `\n\n- Kind: ${kindOf(tool)}${body}`;
    const json = "```json\n" + schemaJson(tool) + "\n```";
    body = JSON_BLOCK.test(body)
      ? body.replace(JSON_BLOCK, () => json)
      : `${body.trimEnd()}\n\n${json}\n\n`;
    const text = "```text\n" + tool.description + "\n```";
    body = TEXT_BLOCK.test(body)
      ? body.replace(TEXT_BLOCK, () => text)
      : body.replace(JSON_BLOCK, (block) => `${text}\n\n${block}`);
    out += doc.slice(last, section.start) + body;
    last = section.end;
  }
  out += doc.slice(last);
  return { doc: out, missing, unknown };
}
