/**
 * Chat Completions request building. The body is assembled from memoized per-message JSON
 * fragments so that every request is a byte-extension of the previous one: the provider's
 * prefix cache then serves all earlier turns.
 *
 * @module
 */
import type { ProviderSettings } from "../registry.ts";
import { imageUrl, userImages } from "../image.ts";
import type { ImagePart, Message, ProviderRequest, ToolSchema } from "../types.ts";

/** Which body field carries `maxOutputTokens`. Newer OpenAI models only accept the second. */
export type MaxTokensField = "max_tokens" | "max_completion_tokens";

/** Wire knobs that are not part of the provider-neutral request. */
export interface BodyOptions {
  /** Defaults to `max_tokens`, which DeepSeek and most compatible servers expect. */
  maxTokensField?: MaxTokensField;
}

// Messages are immutable once appended, so a fragment never goes stale; the WeakMap lets
// fragments die with their messages.
const messageFragments = new WeakMap<Message, string>();
const toolFragments = new WeakMap<readonly ToolSchema[], string>();

/**
 * Serializes one request body. Key order is fixed (`model`, `stream`, `stream_options`,
 * `temperature`, `reasoning_effort`, `tools`, `messages`, then the token cap) so that what
 * varies between requests sits at the end: the history grows at the end of `messages`, and the
 * token cap (clamped near the window edge, or 8192 for a compaction summary) comes after it, so
 * a summary request shares the live request's whole message prefix.
 */
export function buildRequestBody(req: ProviderRequest, opts: BodyOptions = {}): string {
  return requestBodyPieces(req, opts).join("");
}

/**
 * The body of {@link buildRequestBody} as pieces whose concatenation is the body: the head,
 * then one piece per message (memoized, so the same string object from request to request)
 * and one per separator, then the tail. An append-only body buffer re-encodes only the pieces
 * after the first one that changed.
 */
export function requestBodyPieces(req: ProviderRequest, opts: BodyOptions = {}): string[] {
  let head = `{"model":${JSON.stringify(req.model)},"stream":true,` +
    `"stream_options":{"include_usage":true}`;
  if (req.temperature !== undefined) head += `,"temperature":${JSON.stringify(req.temperature)}`;
  if (req.reasoningEffort !== undefined) {
    head += `,"reasoning_effort":${JSON.stringify(req.reasoningEffort)}`;
  }
  const pieces = [head];
  if (req.tools.length > 0) pieces.push(`,"tools":`, toolsFragment(req.tools));
  pieces.push(`,"messages":[{"role":"system","content":`, systemJson(req.system), "}");
  for (const message of req.messages) pieces.push(",", messageFragment(message));
  const cap = req.maxOutputTokens === undefined
    ? ""
    : `,${JSON.stringify(opts.maxTokensField ?? "max_tokens")}:${
      JSON.stringify(req.maxOutputTokens)
    }`;
  pieces.push(`]${cap}}`);
  return pieces;
}

let lastSystem: { text: string; json: string } | undefined;

/** The system prompt's JSON, the same string object while the prompt holds. */
function systemJson(system: string): string {
  if (lastSystem?.text !== system) lastSystem = { text: system, json: JSON.stringify(system) };
  return lastSystem.json;
}

/** The JSON of one message as it appears in `messages`. Exported for tests. */
export function messageFragment(message: Message): string {
  let fragment = messageFragments.get(message);
  if (fragment === undefined) {
    fragment = serializeMessage(message);
    messageFragments.set(message, fragment);
  }
  return fragment;
}

function serializeMessage(message: Message): string {
  switch (message.role) {
    case "system":
    case "user": {
      const images = userImages(message);
      if (images) return userWithImages(message.content, images);
      return `{"role":"${message.role}","content":${JSON.stringify(message.content)}}`;
    }
    case "assistant": {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) {
        return `{"role":"assistant","content":${JSON.stringify(message.content)}}`;
      }
      // OpenAI documents `content: null` for tool-only turns; some gateways (Bedrock, Ollama
      // templates) mishandle an empty string there.
      const content = message.content === "" ? "null" : JSON.stringify(message.content);
      // DeepSeek thinking mode rejects a tool-call turn whose reasoning is not replayed.
      const reasoning = message.reasoning !== undefined
        ? `,"reasoning_content":${JSON.stringify(message.reasoning)}`
        : "";
      const toolCalls = calls.map((call) =>
        `{"id":${JSON.stringify(call.id)},"type":"function","function":{"name":${
          JSON.stringify(call.name)
        },"arguments":${JSON.stringify(call.arguments)}}}`
      );
      return `{"role":"assistant","content":${content}${reasoning},"tool_calls":[${
        toolCalls.join(",")
      }]}`;
    }
    case "tool":
      if (message.toolCallId === undefined) {
        throw new TypeError("a tool message needs the toolCallId of the call it answers");
      }
      return `{"role":"tool","tool_call_id":${JSON.stringify(message.toolCallId)},"content":${
        JSON.stringify(message.content)
      }}`;
    default:
      throw new TypeError(`unknown message role: ${String((message as Message).role)}`);
  }
}

/** A user message as a content array: the text part (when any), then one part per image. */
function userWithImages(text: string, images: readonly ImagePart[]): string {
  const parts = text === "" ? [] : [`{"type":"text","text":${JSON.stringify(text)}}`];
  for (const image of images) {
    parts.push(`{"type":"image_url","image_url":{"url":${JSON.stringify(imageUrl(image))}}}`);
  }
  return `{"role":"user","content":[${parts.join(",")}]}`;
}

function toolsFragment(tools: readonly ToolSchema[]): string {
  let fragment = toolFragments.get(tools);
  if (fragment === undefined) {
    fragment = `[${
      tools.map((tool) =>
        `{"type":"function","function":{"name":${JSON.stringify(tool.name)},"description":${
          JSON.stringify(tool.description)
        },"parameters":${JSON.stringify(tool.parameters)}}}`
      ).join(",")
    }]`;
    toolFragments.set(tools, fragment);
  }
  return fragment;
}

/**
 * The request URL: `requestUrl` verbatim, else the legacy `chatUrl` verbatim, else `baseUrl`
 * plus `/chat/completions`.
 */
export function resolveRequestUrl(settings: ProviderSettings): string {
  if (settings.requestUrl) return settings.requestUrl;
  if (settings.chatUrl) return settings.chatUrl;
  if (settings.baseUrl) return `${settings.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  throw new TypeError(
    `provider "${settings.name}" needs base_url, request_url or chat_url`,
  );
}

/** Request headers; configured headers override the defaults, whatever their letter case. */
export function buildHeaders(settings: ProviderSettings): Record<string, string> {
  const headers = new Headers({
    "content-type": "application/json",
    "accept": "text/event-stream",
  });
  if (settings.apiKey) headers.set("authorization", `Bearer ${settings.apiKey}`);
  for (const [name, value] of Object.entries(settings.headers ?? {})) headers.set(name, value);
  return Object.fromEntries(headers);
}
