/**
 * Messages API request building. Bodies are assembled from memoized per-message block
 * fragments; `messages` comes after everything stable, and only the per-request values
 * (`thinking`, `max_tokens`) follow it.
 *
 * Prompt caching: `cache_control` breakpoints sit on the last tool, on the system block and on
 * the final block of the history (a rolling breakpoint). The rolling marker is the one byte
 * range that differs from the next request: every request is a byte-extension of the previous
 * one up to that marker. When the newest step added more blocks than Anthropic's ~20-block
 * cache lookback reaches, the previous request's tail keeps its marker too (4 breakpoints at
 * most, Anthropic's limit), so the cache entry written by the previous request is still found.
 *
 * @module
 */
import type { ProviderSettings } from "../registry.ts";
import { endpointUrl } from "../settings.ts";
import { userImages } from "../image.ts";
import type { ImagePart, Message, ProviderRequest, ToolSchema } from "../types.ts";

/** Anthropic API version sent in `anthropic-version`. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** The cache breakpoint marker appended to a block. */
export const CACHE_MARKER = `"cache_control":{"type":"ephemeral"}`;

/** Blocks Anthropic looks back from a breakpoint for an earlier cache entry (about 20). */
const CACHE_LOOKBACK_BLOCKS = 18;

/** Wire knobs that are not part of the provider-neutral request. */
export interface AnthropicBodyOptions {
  /** `max_tokens`, required by the wire format. */
  maxTokens: number;
  /** `thinking.type`; omitted when undefined. */
  thinking?: "enabled" | "disabled";
  /** `thinking.budget_tokens` when thinking is enabled; omitted when undefined. */
  thinkingBudget?: number;
}

interface WireMessage {
  role: "user" | "assistant";
  blocks: string[];
}

// Messages are immutable once appended, so their blocks never go stale.
const blockCache = new WeakMap<Message, string[]>();
const toolsCache = new WeakMap<readonly ToolSchema[], string>();

/** Serializes one request body; see the module notes for the key order and cache markers. */
export function buildMessagesBody(req: ProviderRequest, opts: AnthropicBodyOptions): string {
  return messagesBodyPieces(req, opts).join("");
}

/**
 * The body of {@link buildMessagesBody} as pieces whose concatenation is the body, the
 * memoized blocks the same string objects from request to request (see `body_buffer.ts`).
 */
export function messagesBodyPieces(req: ProviderRequest, opts: AnthropicBodyOptions): string[] {
  if (!Number.isInteger(opts.maxTokens) || opts.maxTokens < 1) {
    throw new RangeError(`max_tokens must be a positive integer, got ${opts.maxTokens}`);
  }
  let head = `{"model":${JSON.stringify(req.model)},"stream":true`;
  // Extended thinking only runs at the default temperature; Anthropic rejects any other.
  if (req.temperature !== undefined && opts.thinking !== "enabled") {
    head += `,"temperature":${JSON.stringify(req.temperature)}`;
  }
  if (req.reasoningEffort !== undefined) {
    head += `,"output_config":{"effort":${JSON.stringify(req.reasoningEffort)}}`;
  }
  const pieces = [head];
  if (req.tools.length > 0) pieces.push(`,"tools":`, toolsFragment(req.tools));
  pieces.push(`,"system":[{"type":"text","text":`, systemJson(req.system), SYSTEM_END);
  messagesPieces(req.messages, pieces);
  let tail = "]";
  if (opts.thinking !== undefined) {
    tail += `,"thinking":{"type":"${opts.thinking}"`;
    if (opts.thinking === "enabled" && opts.thinkingBudget !== undefined) {
      tail += `,"budget_tokens":${opts.thinkingBudget}`;
    }
    tail += "}";
  }
  pieces.push(`${tail},"max_tokens":${opts.maxTokens}}`);
  return pieces;
}

const SYSTEM_END = `,${CACHE_MARKER}}],"messages":[`;
const OPEN: Record<WireMessage["role"], string> = {
  user: `{"role":"user","content":[`,
  assistant: `{"role":"assistant","content":[`,
};
const CLOSE = "]}";

let lastSystem: { text: string; json: string } | undefined;

/** The system prompt's JSON, the same string object while the prompt holds. */
function systemJson(system: string): string {
  if (lastSystem?.text !== system) lastSystem = { text: system, json: JSON.stringify(system) };
  return lastSystem.json;
}

/** Groups messages into alternating wire turns: tool results travel in user turns. */
export function wireMessages(messages: readonly Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = messageBlocks(message);
    const last = out.at(-1);
    if (last && last.role === role) last.blocks = [...last.blocks, ...blocks];
    else out.push({ role, blocks });
  }
  return out;
}

/** Appends the pieces of the `messages` array's content (without its brackets) to `out`. */
function messagesPieces(messages: readonly Message[], out: string[]): void {
  const wire = wireMessages(messages);
  if (wire.length === 0) return;
  const marked = new Set<number>([wire.length - 1]);
  // The previous request ended just before the newest assistant turn.
  const lastAssistant = wire.findLastIndex((m) => m.role === "assistant");
  if (lastAssistant > 0) {
    const added = wire.slice(lastAssistant).reduce((n, m) => n + m.blocks.length, 0);
    if (added > CACHE_LOOKBACK_BLOCKS) marked.add(lastAssistant - 1);
  }
  wire.forEach((m, i) => {
    if (i > 0) out.push(",");
    out.push(OPEN[m.role]);
    const last = m.blocks.length - 1;
    m.blocks.forEach((block, k) => {
      if (k > 0) out.push(",");
      out.push(k === last && marked.has(i) ? mark(block) : block);
    });
    out.push(CLOSE);
  });
}

/** Adds the cache marker to a block's JSON object text. */
function mark(block: string): string {
  return `${block.slice(0, -1)},${CACHE_MARKER}}`;
}

/** The content blocks of one message, memoized. Exported for tests. */
export function messageBlocks(message: Message): string[] {
  let blocks = blockCache.get(message);
  if (blocks === undefined) {
    blocks = serializeBlocks(message);
    blockCache.set(message, blocks);
  }
  return blocks;
}

// Anthropic rejects empty text blocks and empty turns; a stable placeholder keeps the turn.
const EMPTY = "(empty)";

function textBlock(text: string): string {
  return `{"type":"text","text":${JSON.stringify(text === "" ? EMPTY : text)}}`;
}

function imageBlock(image: ImagePart): string {
  const source = "url" in image
    ? `{"type":"url","url":${JSON.stringify(image.url)}}`
    : `{"type":"base64","media_type":${JSON.stringify(image.mediaType)},"data":${
      JSON.stringify(image.data)
    }}`;
  return `{"type":"image","source":${source}}`;
}

function serializeBlocks(message: Message): string[] {
  switch (message.role) {
    case "system":
    case "user": {
      const images = userImages(message);
      if (!images) return [textBlock(message.content)];
      // Anthropic recommends images before the text that refers to them.
      const blocks = images.map(imageBlock);
      if (message.content !== "") blocks.push(textBlock(message.content));
      return blocks;
    }
    case "tool": {
      if (message.toolCallId === undefined) {
        throw new TypeError("a tool message needs the toolCallId of the call it answers");
      }
      const error = message.isError ? `,"is_error":true` : "";
      return [
        `{"type":"tool_result","tool_use_id":${JSON.stringify(message.toolCallId)},"content":${
          JSON.stringify(message.content === "" ? EMPTY : message.content)
        }${error}}`,
      ];
    }
    case "assistant": {
      const blocks: string[] = [];
      const calls = message.toolCalls ?? [];
      // Thinking is replayed on tool-call turns, where the model continues from it; its
      // signature lets the server verify it was not altered.
      if (message.reasoning !== undefined && calls.length > 0) {
        const signature = message.reasoningSignature !== undefined
          ? `,"signature":${JSON.stringify(message.reasoningSignature)}`
          : "";
        blocks.push(
          `{"type":"thinking","thinking":${JSON.stringify(message.reasoning)}${signature}}`,
        );
      }
      if (message.content !== "") blocks.push(textBlock(message.content));
      for (const call of calls) {
        blocks.push(
          `{"type":"tool_use","id":${JSON.stringify(call.id)},"name":${
            JSON.stringify(call.name)
          },"input":${inputObject(call.arguments)}}`,
        );
      }
      if (blocks.length === 0) blocks.push(textBlock(""));
      return blocks;
    }
    default:
      throw new TypeError(`unknown message role: ${String((message as Message).role)}`);
  }
}

/** The model's own argument text when it is a JSON object; `{}` for anything unusable. */
function inputObject(args: string): string {
  const text = args.trim();
  try {
    const value = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return text;
  } catch {
    // Cut-off or malformed arguments were reported to the model as an error result.
  }
  return "{}";
}

function toolsFragment(tools: readonly ToolSchema[]): string {
  let fragment = toolsCache.get(tools);
  if (fragment === undefined) {
    const parts = tools.map((tool) =>
      `{"name":${JSON.stringify(tool.name)},"description":${
        JSON.stringify(tool.description)
      },"input_schema":${JSON.stringify(tool.parameters)}}`
    );
    parts[parts.length - 1] = mark(parts[parts.length - 1]);
    fragment = `[${parts.join(",")}]`;
    toolsCache.set(tools, fragment);
  }
  return fragment;
}

/** The request URL: `requestUrl` verbatim, else `baseUrl` + `/v1/messages`. */
export function resolveMessagesUrl(settings: ProviderSettings): string {
  return endpointUrl(settings, "/v1/messages");
}

/**
 * Request headers: `x-api-key` and `anthropic-version`; configured headers override the
 * defaults whatever their letter case (a gateway may want `authorization` instead).
 */
export function buildMessagesHeaders(settings: ProviderSettings): Record<string, string> {
  const headers = new Headers({
    "content-type": "application/json",
    "accept": "text/event-stream",
    "anthropic-version": ANTHROPIC_VERSION,
  });
  if (settings.apiKey) headers.set("x-api-key", settings.apiKey);
  for (const [name, value] of Object.entries(settings.headers ?? {})) headers.set(name, value);
  return Object.fromEntries(headers);
}
