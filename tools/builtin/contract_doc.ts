/**
 * Reads and rewrites `docs/TOOL_CONTRACT.md`, whose per-tool JSON blocks must equal the
 * canonical schemas in code. Shared by the drift test and the regeneration script.
 *
 * @module
 */
import { canonicalize } from "../canonical.ts";
import type { Tool } from "../types.ts";

/** The command that rewrites the doc's generated parts from the code. */
export const REGENERATE_COMMAND =
  "deno run --allow-read --allow-write tools/builtin/gen_contract.ts";

/** The contract document, relative to this module. */
export const CONTRACT_URL: URL = new URL("../../docs/TOOL_CONTRACT.md", import.meta.url);

/** One `## \`tool_name\`` section of the document. */
export interface ContractSection {
  name: string;
  /** Value of the `- Kind:` line (`read-only` or `writer`), if present. */
  kind?: string;
  /** Text of the first ```json block, if present. */
  json?: string;
}

const HEADING = /^## `([^`]+)`[ \t]*$/gm;
const KIND = /^- Kind: (.*)$/m;
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
    return { name, kind: body.match(KIND)?.[1]?.trim(), json: body.match(JSON_BLOCK)?.[1] };
  });
}

/** The canonical pretty JSON of a tool's schema, as the document shows it. */
export function schemaJson(tool: Tool): string {
  return JSON.stringify(canonicalize(tool.schema), null, 2);
}

/** The `- Kind:` value for a tool. */
export function kindOf(tool: Tool): string {
  return tool.readOnly ? "read-only" : "writer";
}

/** Result of {@linkcode regenerateContract}. */
export interface RegeneratedContract {
  doc: string;
  /** Tools with no section in the document. */
  missing: string[];
  /** Sections that name no existing tool. */
  unknown: string[];
}

/** Rewrites every section's JSON block and kind line from `tools`. */
export function regenerateContract(doc: string, tools: Tool[]): RegeneratedContract {
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
    const block = "```json\n" + schemaJson(tool) + "\n```";
    body = JSON_BLOCK.test(body)
      ? body.replace(JSON_BLOCK, () => block)
      : `${body.trimEnd()}\n\n${block}\n\n`;
    out += doc.slice(last, section.start) + body;
    last = section.end;
  }
  out += doc.slice(last);
  return { doc: out, missing, unknown };
}
