/**
 * Recovery of tool calls a model wrote as text instead of using the structured channel: the
 * DeepSeek special-token markup (`<｜tool▁calls▁begin｜>…`, both the V3 and V3.1 shapes), DSML
 * `invoke` blocks, `<tool_call>{…}</tool_call>` tags, or a reply that is nothing but a JSON
 * call object. Only calls naming an offered tool are recovered, so prose that merely mentions
 * a call shape cannot run anything unknown.
 *
 * @module
 */
import type { ToolCall } from "./types.ts";

/** A call found in text, before ids are assigned. */
export interface FoundCall {
  name: string;
  /** JSON object text. */
  arguments: string;
}

// The special tokens use U+FF5C (fullwidth bar) and U+2581 (lower block); some servers
// decode them to ASCII look-alikes.
const BAR = "[｜|]";
const SP = "[▁_ ]";
const CALL_BEGIN = new RegExp(`<${BAR}\\s*tool${SP}call${SP}begin\\s*${BAR}>`, "g");
const CALL_END = new RegExp(`<${BAR}\\s*tool${SP}call${SP}end\\s*${BAR}>`);
const SEP = new RegExp(`<${BAR}\\s*tool${SP}sep\\s*${BAR}>`);
const DSML_INVOKE = new RegExp(
  `<${BAR}DSML${BAR}invoke\\s+name="([^"]+)"\\s*>([\\s\\S]*?)</${BAR}DSML${BAR}invoke>`,
  "g",
);
const DSML_PARAM = new RegExp(
  `<${BAR}DSML${BAR}parameter\\s+name="([^"]+)"(?:\\s+string="(true|false)")?\\s*>` +
    `([\\s\\S]*?)</${BAR}DSML${BAR}parameter>`,
  "g",
);
const TAGGED = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;

/**
 * Finds tool calls written into `text`. `allowBareJson` also accepts text that is, as a whole,
 * one JSON call object (or an array of them), optionally inside a ```json fence; it is meant
 * for visible content, not for reasoning, where drafts of calls are normal.
 */
export function findToolCallsInText(
  text: string,
  toolNames: readonly string[],
  opts: { allowBareJson?: boolean } = {},
): FoundCall[] {
  const known = new Set(toolNames);
  const found = [...specialTokenCalls(text), ...dsmlCalls(text), ...taggedCalls(text)];
  if (found.length === 0 && opts.allowBareJson) found.push(...bareJsonCalls(text));
  return found.filter((call) => known.has(call.name));
}

/**
 * Recovers calls from a finished reply that made no structured call: visible text first, then
 * reasoning. Ids are derived from the text, so replays produce the same ids.
 */
export function recoverToolCalls(
  reply: { text: string; reasoning: string },
  toolNames: readonly string[],
): ToolCall[] {
  if (toolNames.length === 0) return [];
  let found = findToolCallsInText(reply.text, toolNames, { allowBareJson: true });
  let source = reply.text;
  if (found.length === 0) {
    found = findToolCallsInText(reply.reasoning, toolNames);
    source = reply.reasoning;
  }
  const tag = hash(source);
  return found.map((call, i) => ({ id: `call_recovered_${tag}_${i}`, ...call }));
}

function specialTokenCalls(text: string): FoundCall[] {
  const out: FoundCall[] = [];
  const parts = text.split(CALL_BEGIN);
  for (const part of parts.slice(1)) {
    const body = part.split(CALL_END)[0];
    const [head, ...rest] = body.split(SEP);
    if (rest.length === 0) continue;
    let name: string;
    let args: string;
    if (head.trim() === "function") {
      // V3: `function<sep>NAME\n```json\n{…}\n````
      const tail = rest.join("");
      const newline = tail.indexOf("\n");
      name = (newline < 0 ? tail : tail.slice(0, newline)).trim();
      args = newline < 0 ? "" : tail.slice(newline + 1);
    } else {
      // V3.1: `NAME<sep>{…}`
      name = head.trim();
      args = rest.join("");
    }
    const json = objectText(stripFence(args));
    if (name && json !== undefined) out.push({ name, arguments: json });
  }
  return out;
}

function dsmlCalls(text: string): FoundCall[] {
  const out: FoundCall[] = [];
  for (const invoke of text.matchAll(DSML_INVOKE)) {
    const args: Record<string, unknown> = {};
    for (const param of invoke[2].matchAll(DSML_PARAM)) {
      const [, key, isString, raw] = param;
      if (isString === "true") {
        args[key] = raw;
        continue;
      }
      try {
        args[key] = JSON.parse(raw);
      } catch {
        args[key] = raw;
      }
    }
    out.push({ name: invoke[1].trim(), arguments: JSON.stringify(args) });
  }
  return out;
}

function taggedCalls(text: string): FoundCall[] {
  const out: FoundCall[] = [];
  for (const match of text.matchAll(TAGGED)) {
    const call = callFromValue(parse(stripFence(match[1])));
    if (call) out.push(call);
  }
  return out;
}

function bareJsonCalls(text: string): FoundCall[] {
  const value = parse(stripFence(text.trim()));
  const items = Array.isArray(value) ? value : [value];
  const calls = items.map(callFromValue);
  // All or nothing: a list that is only partly calls is data, not a call.
  if (calls.length === 0 || calls.some((c) => c === undefined)) return [];
  return calls as FoundCall[];
}

/** `{"name", "arguments" | "parameters" | "input"}`, arguments as an object or its JSON text. */
function callFromValue(value: unknown): FoundCall | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const fn = typeof record.function === "object" && record.function !== null
    ? record.function as Record<string, unknown>
    : record;
  if (typeof fn.name !== "string" || fn.name === "") return undefined;
  const keys = Object.keys(fn).filter((k) => k !== "name" && k !== "type" && k !== "id");
  const argKey = ["arguments", "parameters", "input"].find((k) => k in fn);
  if (!argKey || keys.length !== 1) return undefined;
  const raw = fn[argKey];
  const json = typeof raw === "string"
    ? objectText(raw)
    : typeof raw === "object" && raw !== null && !Array.isArray(raw)
    ? JSON.stringify(raw)
    : undefined;
  return json === undefined ? undefined : { name: fn.name, arguments: json };
}

function stripFence(text: string): string {
  const fenced = /^\s*```[a-zA-Z]*\s*\n?([\s\S]*?)\n?\s*```\s*$/.exec(text);
  return fenced ? fenced[1] : text;
}

/** The text when it is one JSON object, else undefined. */
function objectText(text: string): string | undefined {
  const trimmed = text.trim();
  const value = parse(trimmed);
  return typeof value === "object" && value !== null && !Array.isArray(value) ? trimmed : undefined;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** FNV-1a, 32 bits, as 8 hex digits: a stable, short tag for generated ids. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
