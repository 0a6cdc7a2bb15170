/**
 * Wire-neutral message and streaming types shared by every provider kind (spec §4).
 *
 * @module
 */

/** Who wrote a message. */
export type Role = "system" | "user" | "assistant" | "tool";

/** A complete tool call: providers aggregate streaming deltas before emitting one. */
export interface ToolCall {
  /** Provider-assigned id, echoed back in the matching tool message. */
  id: string;
  /** Tool name as the model wrote it. */
  name: string;
  /** Raw JSON argument text exactly as streamed; parsing happens in the tool layer. */
  arguments: string;
  /**
   * Set by the provider when the arguments cannot be used as streamed (cut off at the output
   * limit and not safely repairable). The tool pipeline reports it to the model instead of
   * running the call; wire serializers never send it.
   */
  argumentsError?: string;
}

/**
 * An image on a user message: inline bytes (`data` is base64, `mediaType` e.g. `image/png`) or a
 * URL the provider fetches itself (`http(s)://…`). Serializers write each kind's own image
 * part; only models that accept images ever receive one (see `capabilities.ts`).
 */
export type ImagePart = { mediaType: string; data: string } | { url: string };

/** One conversation message. Immutable once appended to a session. */
export interface Message {
  /** Who wrote the message. */
  role: Role;
  /** Visible text. For tool messages, the bounded provider-visible result. */
  content: string;
  /** Reasoning text (DeepSeek `reasoning_content`), replayed verbatim on tool-call turns. */
  reasoning?: string;
  /** Opaque provider data that must be replayed exactly (e.g. thinking signatures). */
  reasoningSignature?: string;
  /** Tool calls requested by an assistant message. */
  toolCalls?: ToolCall[];
  /** For `tool` messages: the id of the call this answers. */
  toolCallId?: string;
  /** For `tool` messages: the tool name. */
  name?: string;
  /** For `tool` messages: whether the result is an error. */
  isError?: boolean;
  /**
   * For `tool` messages: the full local result when `content` was shortened. Kept for the
   * user and for explicit paging; providers never send it.
   */
  rawContent?: string;
  /**
   * For `user` messages: images shown to the model after (OpenAI, Responses) or before
   * (Anthropic) the text. Absent or empty serializes exactly like a text-only message.
   */
  images?: ImagePart[];
}

/** JSON Schema object, canonicalized by the tool registry. */
export type JsonSchema = { [key: string]: unknown };

/** A tool as the model sees it. */
export interface ToolSchema {
  /** Tool name, unique in one request. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

/** Everything a provider needs for one streamed completion. */
export interface ProviderRequest {
  /** Model id as sent on the wire. */
  model: string;
  /** The stable system prompt. */
  system: string;
  /** Conversation history, oldest first. */
  messages: readonly Message[];
  /** Tools offered to the model, already sorted and canonicalized. */
  tools: readonly ToolSchema[];
  /**
   * Output cap for this request. `undefined` omits the field; providers never invent one
   * unless their wire format requires it.
   */
  maxOutputTokens?: number;
  /** Sampling temperature; `undefined` leaves the provider's default. */
  temperature?: number;
  /** Reasoning effort hint (`low` | `medium` | `high` | `max`), when the model supports one. */
  reasoningEffort?: string;
}

/** Token usage normalized across providers. */
export interface Usage {
  /** All prompt tokens, cached or not. */
  promptTokens: number;
  /** Generated tokens, reasoning included. */
  completionTokens: number;
  /** Prompt tokens served from the provider's prefix cache. */
  cacheHitTokens: number;
  /** Prompt tokens not served from cache (`promptTokens - cacheHitTokens`). */
  cacheMissTokens: number;
  /** Reasoning tokens, when reported separately (already included in completion tokens). */
  reasoningTokens?: number;
}

/** Why the model stopped. `length` means the output cap was hit. */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "other";

/** One streamed piece of a completion. */
export type Chunk =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; call: ToolCall }
  | { type: "usage"; usage: Usage }
  | { type: "reasoning_signature"; signature: string }
  | { type: "done"; finishReason: FinishReason };

/**
 * A streaming model endpoint. One instance per configured provider and model.
 *
 * @example Collect a completion's text
 * ```ts
 * import type { Provider } from "@reasonix/reasonix";
 * import { ScriptedProvider, textReply } from "@reasonix/reasonix/testing";
 *
 * async function complete(provider: Provider, text: string): Promise<string> {
 *   let out = "";
 *   const req = { model: "m", system: "Be brief.", messages: [{ role: "user" as const, content: text }], tools: [] };
 *   for await (const chunk of provider.stream(req, { signal: AbortSignal.timeout(30_000) })) {
 *     if (chunk.type === "text") out += chunk.text;
 *   }
 *   return out;
 * }
 * console.log(await complete(new ScriptedProvider([textReply("Hi!")]), "Hello")); // Hi!
 * ```
 */
export interface Provider {
  /** Configured provider name (e.g. `deepseek`). */
  readonly name: string;
  /**
   * Streams one completion. Errors are thrown as `ProviderError` subclasses; retries happen
   * inside only before the first chunk is yielded.
   */
  stream(req: ProviderRequest, opts: { signal: AbortSignal }): AsyncIterable<Chunk>;
  /**
   * The body `stream` would send first for `req`, byte for byte (learned limits applied), so
   * the cache-break meter measures what the provider's cache sees. Optional: without it the
   * meter measures a canonical JSON of the request.
   */
  body?(req: ProviderRequest): string;
  /**
   * Wire parameters outside the byte prefix that the provider's cache keys on anyway (Anthropic:
   * the thinking configuration), as a stable string; a change is a cache break. Optional.
   */
  cacheKey?(req: ProviderRequest): string;
}
