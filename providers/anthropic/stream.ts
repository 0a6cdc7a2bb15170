/**
 * Messages API stream decoding: `message_start`, `content_block_start/delta/stop`,
 * `message_delta`, `message_stop`, `ping` and `error` events in, wire-neutral `Chunk`s out.
 * Text and thinking pass through as they arrive; tool calls are emitted whole at the end.
 *
 * @module
 */
import { ProviderError } from "../errors.ts";
import { inStreamError } from "../http.ts";
import { parseEventJson, type SseEvent } from "../sse.ts";
import type { Chunk, FinishReason, ToolCall, Usage } from "../types.ts";

/** The `usage` object of `message_start` and `message_delta`. */
export interface AnthropicUsage {
  /** Prompt tokens neither read from nor written to the cache. */
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Options for {@link decodeMessagesStream}. */
export interface MessagesDecodeOptions {
  /** Provider name used in error messages. */
  provider: string;
  /** Values scrubbed from error messages. */
  secrets?: readonly string[];
}

interface Block {
  type: string;
  id?: string;
  name?: string;
  json?: string;
  /** `input` of a `tool_use` start, used when no JSON deltas follow. */
  input?: unknown;
  signature?: string;
}

/**
 * Normalizes Anthropic usage. `input_tokens` excludes cache reads and cache writes, so the
 * prompt is their sum; only reads are hits.
 */
export function normalizeAnthropicUsage(wire: AnthropicUsage): Usage {
  const input = num(wire.input_tokens) ?? 0;
  const read = num(wire.cache_read_input_tokens) ?? 0;
  const created = num(wire.cache_creation_input_tokens) ?? 0;
  return {
    promptTokens: input + read + created,
    completionTokens: num(wire.output_tokens) ?? 0,
    cacheHitTokens: read,
    cacheMissTokens: input + created,
  };
}

/** Maps a wire `stop_reason` to the neutral set. */
export function mapStopReason(reason: string): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      // e.g. `pause_turn`.
      return "other";
  }
}

/**
 * Turns the event stream of one message into chunks. A stream that ends before both a
 * `stop_reason` and `message_stop` was cut off and throws a retryable `provider_stream`.
 */
export async function* decodeMessagesStream(
  events: AsyncIterable<SseEvent>,
  opts: MessagesDecodeOptions,
): AsyncGenerator<Chunk> {
  const blocks = new Map<number, Block>();
  const calls: { index: number; block: Block }[] = [];
  const usage: AnthropicUsage = {};
  let sawUsage = false;
  let stopReason: string | undefined;
  let sawStop = false;
  let lastIndex = -1;

  const mergeUsage = (wire: unknown): void => {
    if (typeof wire !== "object" || wire === null) return;
    for (const [key, value] of Object.entries(wire)) {
      if (typeof value === "number" && Number.isFinite(value)) {
        (usage as Record<string, number>)[key] = value;
        sawUsage = true;
      }
    }
  };

  for await (const event of events) {
    const data = event.data.trim();
    if (data === "") continue;
    const payload = parseEventJson(data, opts.provider);
    if (!payload) continue;
    const type = typeof payload.type === "string" ? payload.type : event.event;
    switch (type) {
      case "message_start": {
        const message = (payload.message ?? {}) as Record<string, unknown>;
        mergeUsage(message.usage);
        break;
      }
      case "content_block_start": {
        const index = num(payload.index) ?? blocks.size;
        const raw = (payload.content_block ?? {}) as Record<string, unknown>;
        const block: Block = { type: String(raw.type ?? "") };
        blocks.set(index, block);
        lastIndex = Math.max(lastIndex, index);
        if (block.type === "tool_use") {
          block.id = typeof raw.id === "string" ? raw.id : `toolu_${index}`;
          block.name = typeof raw.name === "string" ? raw.name : "";
          block.json = "";
          block.input = raw.input;
          calls.push({ index, block });
        } else if (block.type === "text" && typeof raw.text === "string" && raw.text !== "") {
          yield { type: "text", text: raw.text };
        } else if (block.type === "thinking") {
          if (typeof raw.thinking === "string" && raw.thinking !== "") {
            yield { type: "reasoning", text: raw.thinking };
          }
          if (typeof raw.signature === "string" && raw.signature !== "") {
            block.signature = raw.signature;
          }
        }
        break;
      }
      case "content_block_delta": {
        const index = num(payload.index) ?? lastIndex;
        const block = blocks.get(index);
        const delta = (payload.delta ?? {}) as Record<string, unknown>;
        switch (delta.type) {
          case "text_delta":
            if (typeof delta.text === "string" && delta.text !== "") {
              yield { type: "text", text: delta.text };
            }
            break;
          case "thinking_delta":
            if (typeof delta.thinking === "string" && delta.thinking !== "") {
              yield { type: "reasoning", text: delta.thinking };
            }
            break;
          case "signature_delta":
            if (block && typeof delta.signature === "string") {
              block.signature = (block.signature ?? "") + delta.signature;
            }
            break;
          case "input_json_delta":
            if (block?.type === "tool_use" && typeof delta.partial_json === "string") {
              block.json += delta.partial_json;
            }
            break;
          default:
            // citations and future delta types carry nothing the loop uses.
            break;
        }
        break;
      }
      case "content_block_stop": {
        const block = blocks.get(num(payload.index) ?? lastIndex);
        if (block?.type === "thinking" && block.signature) {
          yield { type: "reasoning_signature", signature: block.signature };
        }
        break;
      }
      case "message_delta": {
        const delta = (payload.delta ?? {}) as Record<string, unknown>;
        if (typeof delta.stop_reason === "string") stopReason = delta.stop_reason;
        mergeUsage(payload.usage);
        break;
      }
      case "message_stop":
        sawStop = true;
        break;
      case "error":
        throw streamError(payload.error, opts);
      default:
        // `ping` and event types added later.
        break;
    }
    if (sawStop) break;
  }

  if (!sawStop && stopReason === undefined) {
    throw new ProviderError(
      "provider_stream",
      `${opts.provider}: the stream ended before the message finished (truncated response)`,
      { retryable: true },
    );
  }
  const cutOff = stopReason !== undefined && mapStopReason(stopReason) === "length";
  for (const { index, block } of calls) {
    if (!block.name) {
      throw new ProviderError(
        "provider_stream",
        `${opts.provider}: tool_use block ${index} arrived without a name`,
      );
    }
    const call: ToolCall = { id: block.id!, name: block.name, arguments: block.json ?? "" };
    // A call with no JSON deltas has its whole input in the start event, unless the output
    // limit cut it off right there; then the empty text lets the caller report the cut.
    if (call.arguments === "" && !(cutOff && index === lastIndex)) {
      call.arguments = isObject(block.input) ? JSON.stringify(block.input) : "{}";
    }
    yield { type: "tool_call", call };
  }
  if (sawUsage) yield { type: "usage", usage: normalizeAnthropicUsage(usage) };
  let reason = stopReason === undefined
    ? (calls.length ? "tool_calls" : "stop") as FinishReason
    : mapStopReason(stopReason);
  if (reason === "stop" && calls.length > 0) reason = "tool_calls";
  yield { type: "done", finishReason: reason };
}

/** Congestion codes worth a retry when nothing was shown yet. */
const RETRYABLE_CODES = /overloaded|api_error|rate_limit|timeout/i;

function streamError(error: unknown, opts: MessagesDecodeOptions): ProviderError {
  return inStreamError(error, opts, RETRYABLE_CODES);
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.keys(value).length > 0;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
