/**
 * OpenAI Responses API request building. Stateless (`store: false`): the whole conversation
 * travels as `input` items each time, with reasoning carried as encrypted content. Items are
 * memoized per message; `input` comes after everything stable and only `max_output_tokens`
 * follows it, so each request is a byte-extension of the previous one up to its input.
 *
 * @module
 */
import type { ProviderSettings } from "../registry.ts";
import { endpointUrl } from "../settings.ts";
import { buildHeaders } from "../openai/request.ts";
import { imageUrl, userImages } from "../image.ts";
import type { ImagePart, Message, ProviderRequest, ToolSchema } from "../types.ts";

/** Wire knobs that are not part of the provider-neutral request. */
export interface ResponsesBodyOptions {
  /**
   * Ask for `reasoning.encrypted_content` so reasoning can be replayed statelessly. Default
   * true; a server that rejects the `include` value can turn it off.
   */
  includeEncryptedReasoning?: boolean;
  /** `reasoning.summary` (`auto`, `concise`, `detailed`); omitted when undefined. */
  reasoningSummary?: string;
}

// Several encrypted reasoning items of one reply share `Message.reasoningSignature`, one per
// line (their base64 text has no newlines).
const SIGNATURE_SEPARATOR = "\n";

const itemCache = new WeakMap<Message, string[]>();
const toolsCache = new WeakMap<readonly ToolSchema[], string>();

/** Serializes one request body. */
export function buildResponsesBody(
  req: ProviderRequest,
  opts: ResponsesBodyOptions = {},
): string {
  return responsesBodyPieces(req, opts).join("");
}

/**
 * The body of {@link buildResponsesBody} as pieces whose concatenation is the body, the
 * memoized items the same string objects from request to request (see `body_buffer.ts`).
 */
export function responsesBodyPieces(
  req: ProviderRequest,
  opts: ResponsesBodyOptions = {},
): string[] {
  let body = `{"model":${JSON.stringify(req.model)},"stream":true,"store":false`;
  if (opts.includeEncryptedReasoning !== false) {
    body += `,"include":["reasoning.encrypted_content"]`;
  }
  if (req.temperature !== undefined) body += `,"temperature":${JSON.stringify(req.temperature)}`;
  if (req.reasoningEffort !== undefined || opts.reasoningSummary !== undefined) {
    const parts: string[] = [];
    if (req.reasoningEffort !== undefined) {
      parts.push(`"effort":${JSON.stringify(req.reasoningEffort)}`);
    }
    if (opts.reasoningSummary !== undefined) {
      parts.push(`"summary":${JSON.stringify(opts.reasoningSummary)}`);
    }
    body += `,"reasoning":{${parts.join(",")}}`;
  }
  const pieces = [body];
  if (req.tools.length > 0) pieces.push(`,"tools":`, toolsFragment(req.tools));
  pieces.push(`,"instructions":`, instructionsJson(req.system), `,"input":[`);
  let first = true;
  for (const message of req.messages) {
    for (const item of inputItems(message)) {
      if (!first) pieces.push(",");
      pieces.push(item);
      first = false;
    }
  }
  const cap = req.maxOutputTokens === undefined
    ? ""
    : `,"max_output_tokens":${JSON.stringify(req.maxOutputTokens)}`;
  pieces.push(`]${cap}}`);
  return pieces;
}

let lastInstructions: { text: string; json: string } | undefined;

/** The instructions' JSON, the same string object while the system prompt holds. */
function instructionsJson(system: string): string {
  if (lastInstructions?.text !== system) {
    lastInstructions = { text: system, json: JSON.stringify(system) };
  }
  return lastInstructions.json;
}

/** The `input` items of one message, memoized. Exported for tests. */
export function inputItems(message: Message): string[] {
  let items = itemCache.get(message);
  if (items === undefined) {
    items = serializeItems(message);
    itemCache.set(message, items);
  }
  return items;
}

function serializeItems(message: Message): string[] {
  switch (message.role) {
    case "system":
    case "user": {
      const images = userImages(message);
      if (images) return [userWithImages(message.content, images)];
      return [`{"role":"${message.role}","content":${JSON.stringify(message.content)}}`];
    }
    case "tool":
      if (message.toolCallId === undefined) {
        throw new TypeError("a tool message needs the toolCallId of the call it answers");
      }
      return [
        `{"type":"function_call_output","call_id":${JSON.stringify(message.toolCallId)},"output":${
          JSON.stringify(message.content)
        }}`,
      ];
    case "assistant": {
      const items: string[] = [];
      const calls = message.toolCalls ?? [];
      items.push(...reasoningItems(message, calls.length > 0));
      if (message.content !== "") {
        items.push(
          `{"type":"message","role":"assistant","content":[{"type":"output_text","text":${
            JSON.stringify(message.content)
          }}]}`,
        );
      }
      for (const call of calls) {
        items.push(
          `{"type":"function_call","call_id":${JSON.stringify(call.id)},"name":${
            JSON.stringify(call.name)
          },"arguments":${JSON.stringify(call.arguments)}}`,
        );
      }
      return items;
    }
    default:
      throw new TypeError(`unknown message role: ${String((message as Message).role)}`);
  }
}

/** A user message as `input_text` (when any) and `input_image` parts. */
function userWithImages(text: string, images: readonly ImagePart[]): string {
  const parts = text === "" ? [] : [`{"type":"input_text","text":${JSON.stringify(text)}}`];
  for (const image of images) {
    // `detail` is required by the published schema; `auto` lets the model choose.
    parts.push(
      `{"type":"input_image","image_url":${JSON.stringify(imageUrl(image))},"detail":"auto"}`,
    );
  }
  return `{"role":"user","content":[${parts.join(",")}]}`;
}

/**
 * Encrypted reasoning is always replayed (the server continues from it); plain reasoning only
 * on tool-call turns, for servers that expect their reasoning back there and send no
 * encrypted form.
 */
function reasoningItems(message: Message, hasCalls: boolean): string[] {
  const summary = (text: string | undefined): string =>
    text ? `[{"type":"summary_text","text":${JSON.stringify(text)}}]` : "[]";
  if (message.reasoningSignature) {
    return message.reasoningSignature.split(SIGNATURE_SEPARATOR).map((encrypted, i) =>
      `{"type":"reasoning","summary":${summary(i === 0 ? message.reasoning : undefined)},` +
      `"encrypted_content":${JSON.stringify(encrypted)}}`
    );
  }
  if (message.reasoning && hasCalls) {
    return [`{"type":"reasoning","summary":${summary(message.reasoning)}}`];
  }
  return [];
}

/** Joins the encrypted contents of one reply's reasoning items into one signature. */
export function joinReasoningSignatures(encrypted: readonly string[]): string {
  return encrypted.join(SIGNATURE_SEPARATOR);
}

function toolsFragment(tools: readonly ToolSchema[]): string {
  let fragment = toolsCache.get(tools);
  if (fragment === undefined) {
    fragment = `[${
      tools.map((tool) =>
        `{"type":"function","name":${JSON.stringify(tool.name)},"description":${
          JSON.stringify(tool.description)
        },"parameters":${JSON.stringify(tool.parameters)},"strict":false}`
      ).join(",")
    }]`;
    toolsCache.set(tools, fragment);
  }
  return fragment;
}

/** The request URL: `requestUrl` verbatim, else `baseUrl` + `/responses`. */
export function resolveResponsesUrl(settings: ProviderSettings): string {
  return endpointUrl(settings, "/responses");
}

/** Request headers: the same as the `openai` kind's (JSON, SSE, bearer key, then configured). */
export const buildResponsesHeaders: (settings: ProviderSettings) => Record<string, string> =
  buildHeaders;
