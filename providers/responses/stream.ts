/**
 * Responses API stream decoding: `response.*` events in, wire-neutral `Chunk`s out. Text and
 * reasoning (summaries or raw reasoning text) pass through as they arrive; function calls are
 * emitted whole; encrypted reasoning becomes one `reasoning_signature` chunk.
 *
 * @module
 */
import { ProviderError } from "../errors.ts";
import { inStreamError } from "../http.ts";
import { parseEventJson, type SseEvent } from "../sse.ts";
import type { Chunk, FinishReason, ToolCall, Usage } from "../types.ts";
import { joinReasoningSignatures } from "./request.ts";

/** The `usage` object of a finished response. */
export interface ResponsesUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number } | null;
  total_tokens?: number;
}

/** Options for {@link decodeResponsesStream}. */
export interface ResponsesDecodeOptions {
  /** Provider name used in error messages. */
  provider: string;
  /** Values scrubbed from error messages. */
  secrets?: readonly string[];
}

interface PendingCall {
  outputIndex: number;
  callId: string;
  name: string;
  arguments: string;
}

/** Normalizes Responses usage; `input_tokens` includes the cached ones. */
export function normalizeResponsesUsage(wire: ResponsesUsage): Usage {
  const prompt = num(wire.input_tokens) ?? 0;
  const hit = num(wire.input_tokens_details?.cached_tokens) ?? 0;
  const usage: Usage = {
    promptTokens: prompt,
    completionTokens: num(wire.output_tokens) ?? 0,
    cacheHitTokens: hit,
    cacheMissTokens: Math.max(0, prompt - hit),
  };
  const reasoning = num(wire.output_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/**
 * Turns the event stream of one response into chunks. A stream that ends before
 * `response.completed` / `response.incomplete` was cut off and throws a retryable
 * `provider_stream`; `response.failed` and `error` events throw the server's words.
 */
export async function* decodeResponsesStream(
  events: AsyncIterable<SseEvent>,
  opts: ResponsesDecodeOptions,
): AsyncGenerator<Chunk> {
  const calls = new Map<string, PendingCall>();
  const encrypted: string[] = [];
  let usage: Usage | undefined;
  let finish: FinishReason | undefined;
  // Summary parts and reasoning items are separate paragraphs.
  let reasoningKey = "";
  let sawReasoning = false;

  const callFor = (item: Record<string, unknown>, outputIndex: number): PendingCall => {
    const key = String(item.id ?? item.call_id ?? `output_${outputIndex}`);
    let call = calls.get(key);
    if (!call) {
      call = { outputIndex, callId: "", name: "", arguments: "" };
      calls.set(key, call);
    }
    if (typeof item.call_id === "string" && item.call_id !== "") call.callId = item.call_id;
    if (typeof item.name === "string" && item.name !== "") call.name = item.name;
    return call;
  };

  const reasoningText = function* (text: unknown, key: string): Generator<Chunk> {
    if (typeof text !== "string" || text === "") return;
    if (sawReasoning && key !== reasoningKey) yield { type: "reasoning", text: "\n\n" };
    reasoningKey = key;
    sawReasoning = true;
    yield { type: "reasoning", text };
  };

  for await (const event of events) {
    const data = event.data.trim();
    if (data === "" || data === "[DONE]") continue;
    const payload = parseEventJson(data, opts.provider);
    if (!payload) continue;
    const type = typeof payload.type === "string" ? payload.type : event.event;
    const outputIndex = num(payload.output_index) ?? 0;
    switch (type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (typeof payload.delta === "string" && payload.delta !== "") {
          yield { type: "text", text: payload.delta };
        }
        break;
      case "response.reasoning_summary_text.delta":
        yield* reasoningText(
          payload.delta,
          `${payload.item_id}:summary:${payload.summary_index ?? 0}`,
        );
        break;
      case "response.reasoning_text.delta":
        yield* reasoningText(
          payload.delta,
          `${payload.item_id}:text:${payload.content_index ?? 0}`,
        );
        break;
      case "response.output_item.added":
      case "response.output_item.done": {
        const item = (payload.item ?? {}) as Record<string, unknown>;
        if (item.type === "function_call") {
          const call = callFor(item, outputIndex);
          if (type === "response.output_item.done" && typeof item.arguments === "string") {
            call.arguments = item.arguments;
          }
        } else if (
          item.type === "reasoning" && type === "response.output_item.done" &&
          typeof item.encrypted_content === "string" && item.encrypted_content !== ""
        ) {
          encrypted.push(item.encrypted_content);
        }
        break;
      }
      case "response.function_call_arguments.delta": {
        const call = callFor({ id: payload.item_id }, outputIndex);
        if (typeof payload.delta === "string") call.arguments += payload.delta;
        break;
      }
      case "response.function_call_arguments.done": {
        const call = callFor({ id: payload.item_id }, outputIndex);
        if (typeof payload.arguments === "string") call.arguments = payload.arguments;
        break;
      }
      case "response.completed":
      case "response.incomplete": {
        const response = (payload.response ?? {}) as Record<string, unknown>;
        if (typeof response.usage === "object" && response.usage !== null) {
          usage = normalizeResponsesUsage(response.usage as ResponsesUsage);
        }
        finish = type === "response.completed" ? "stop" : incompleteReason(response);
        break;
      }
      case "response.failed": {
        const response = (payload.response ?? {}) as Record<string, unknown>;
        throw streamError(response.error ?? { message: "the response failed" }, opts);
      }
      case "error":
        throw streamError(payload.error ?? payload, opts);
      default:
        // `response.created`, `.in_progress`, part events, and event types added later.
        break;
    }
    if (finish !== undefined) break;
  }

  if (finish === undefined) {
    throw new ProviderError(
      "provider_stream",
      `${opts.provider}: the stream ended before the response finished (truncated response)`,
      { retryable: true },
    );
  }
  const ordered = [...calls.values()].sort((a, b) => a.outputIndex - b.outputIndex);
  for (const pending of ordered) {
    if (pending.name === "") {
      throw new ProviderError(
        "provider_stream",
        `${opts.provider}: function call at output ${pending.outputIndex} arrived without a name`,
      );
    }
    const call: ToolCall = {
      id: pending.callId || `call_${pending.outputIndex}`,
      name: pending.name,
      arguments: pending.arguments,
    };
    yield { type: "tool_call", call };
  }
  if (encrypted.length > 0) {
    yield { type: "reasoning_signature", signature: joinReasoningSignatures(encrypted) };
  }
  if (usage) yield { type: "usage", usage };
  yield { type: "done", finishReason: finish === "stop" && ordered.length ? "tool_calls" : finish };
}

function incompleteReason(response: Record<string, unknown>): FinishReason {
  const details = (response.incomplete_details ?? {}) as Record<string, unknown>;
  if (details.reason === "max_output_tokens") return "length";
  if (details.reason === "content_filter") return "content_filter";
  return "other";
}

/** Congestion codes worth a retry when nothing was shown yet. */
const RETRYABLE_CODES = /overloaded|server_error|rate_limit|server_is_overloaded|^(429|5\d\d)$/i;

function streamError(error: unknown, opts: ResponsesDecodeOptions): ProviderError {
  return inStreamError(error, opts, RETRYABLE_CODES);
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
