/**
 * Chat Completions stream decoding: `chat.completion.chunk` events in, wire-neutral `Chunk`s
 * out. Tool-call deltas are aggregated here so only complete calls leave the provider.
 *
 * @module
 */
import { ProviderError } from "../errors.ts";
import { inStreamError } from "../http.ts";
import { parseEventJson, type SseEvent } from "../sse.ts";
import type { Chunk, FinishReason, ToolCall, Usage } from "../types.ts";

/** The `usage` object as DeepSeek and OpenAI send it. */
export interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** DeepSeek. */
  prompt_cache_hit_tokens?: number;
  /** DeepSeek. */
  prompt_cache_miss_tokens?: number;
  /** OpenAI (DeepSeek sends it too). */
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Options for {@link decodeChatStream}. */
export interface DecodeOptions {
  /** Provider name used in error messages. */
  provider: string;
  /** Values scrubbed from error messages. */
  secrets?: readonly string[];
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/** Normalizes wire usage; the cache miss is derived when the server does not report it. */
export function normalizeUsage(wire: WireUsage): Usage {
  const hit = num(wire.prompt_cache_hit_tokens) ?? num(wire.prompt_tokens_details?.cached_tokens) ??
    0;
  const reportedMiss = num(wire.prompt_cache_miss_tokens);
  const prompt = num(wire.prompt_tokens) ?? (reportedMiss !== undefined ? hit + reportedMiss : 0);
  const usage: Usage = {
    promptTokens: prompt,
    completionTokens: num(wire.completion_tokens) ?? 0,
    cacheHitTokens: hit,
    cacheMissTokens: reportedMiss ?? Math.max(0, prompt - hit),
  };
  const reasoning = num(wire.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/** Maps a wire `finish_reason` to the neutral set. */
export function mapFinishReason(reason: string): FinishReason {
  switch (reason) {
    case "stop":
    case "length":
    case "content_filter":
    case "tool_calls":
      return reason;
    case "function_call":
      return "tool_calls";
    default:
      // e.g. DeepSeek's `insufficient_system_resource`.
      return "other";
  }
}

/**
 * Turns the event stream of one completion into chunks. Text and reasoning pass through as
 * they arrive; tool calls are emitted whole, in index order, once `finish_reason` arrives (or
 * at `[DONE]`); usage and `done` come last. A stream that stops before both `[DONE]` and a
 * finish reason was cut off and throws `provider_stream`.
 */
export async function* decodeChatStream(
  events: AsyncIterable<SseEvent>,
  opts: DecodeOptions,
): AsyncGenerator<Chunk> {
  const calls = new Map<number, PendingCall>();
  // Servers that reuse one index for parallel calls signal a new call with a new id.
  let extraSlot = 1_000_000;
  let lastIndex = 0;
  let finish: string | undefined;
  let usage: Usage | undefined;
  let sawDone = false;
  let emittedCalls = 0;

  const flushCalls = function* (): Generator<Chunk> {
    const ordered = [...calls.entries()].sort(([a], [b]) => a - b);
    calls.clear();
    for (const [index, call] of ordered) {
      if (call.name === "") {
        throw new ProviderError(
          "provider_stream",
          `${opts.provider}: tool call at index ${index} arrived without a name`,
        );
      }
      emittedCalls++;
      const complete: ToolCall = {
        id: call.id || `call_${index}`,
        name: call.name,
        arguments: call.arguments,
      };
      yield { type: "tool_call", call: complete };
    }
  };

  for await (const event of events) {
    const data = event.data.trim();
    if (data === "[DONE]") {
      sawDone = true;
      break;
    }
    if (data === "") continue;
    const payload = parseEventJson(data, opts.provider);
    if (!payload) continue;
    if (payload.error !== undefined && payload.error !== null) {
      throw streamError(payload.error, opts);
    }
    if (typeof payload.usage === "object" && payload.usage !== null) {
      usage = normalizeUsage(payload.usage as WireUsage);
    }
    const choices = Array.isArray(payload.choices) ? payload.choices : [];
    const choice = (choices.find((c) => c?.index === 0) ?? choices[0]) as
      | Record<string, unknown>
      | undefined;
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Record<string, unknown>;
    const reasoning = typeof delta.reasoning_content === "string"
      ? delta.reasoning_content
      : typeof delta.reasoning === "string"
      ? delta.reasoning
      : "";
    if (reasoning !== "") yield { type: "reasoning", text: reasoning };
    if (typeof delta.content === "string" && delta.content !== "") {
      yield { type: "text", text: delta.content };
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const raw of delta.tool_calls as Record<string, unknown>[]) {
        const fn = (raw.function ?? {}) as Record<string, unknown>;
        const id = typeof raw.id === "string" ? raw.id : "";
        // Without an index, a delta continues the call the previous delta touched.
        let index = typeof raw.index === "number" ? raw.index : lastIndex;
        let call = calls.get(index);
        if (call && id !== "" && call.id !== "" && id !== call.id) {
          index = extraSlot++;
          call = undefined;
        }
        if (!call) {
          call = { id: "", name: "", arguments: "" };
          calls.set(index, call);
        }
        lastIndex = index;
        if (call.id === "" && id !== "") call.id = id;
        if (typeof fn.name === "string" && fn.name !== call.name) call.name += fn.name;
        if (typeof fn.arguments === "string") call.arguments += fn.arguments;
      }
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
      finish = choice.finish_reason;
      yield* flushCalls();
    }
  }

  if (!sawDone && finish === undefined) {
    throw new ProviderError(
      "provider_stream",
      `${opts.provider}: the stream ended before the completion finished (truncated response)`,
      { retryable: true },
    );
  }
  yield* flushCalls();
  if (usage) yield { type: "usage", usage };
  let reason: FinishReason = finish === undefined
    ? (emittedCalls > 0 ? "tool_calls" : "stop")
    : mapFinishReason(finish);
  // Some compatible servers report `stop` after tool calls; the caller must still run them.
  if (reason === "stop" && emittedCalls > 0) reason = "tool_calls";
  yield { type: "done", finishReason: reason };
}

/** Congestion codes worth a retry when nothing was shown yet. */
const RETRYABLE_CODES = /overloaded|server_error|rate_limit|^(429|5\d\d)$/i;

function streamError(error: unknown, opts: DecodeOptions): ProviderError {
  return inStreamError(error, opts, RETRYABLE_CODES);
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
