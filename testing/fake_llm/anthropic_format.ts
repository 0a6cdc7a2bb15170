/**
 * The Anthropic Messages wire encoding of the fake: `event:`-named SSE frames as Anthropic
 * sends them (`message_start`, `content_block_*`, `ping`, `message_delta`, `message_stop`,
 * `error`) and its JSON error bodies.
 *
 * @module
 */
import {
  ARG_PIECES,
  splitPieces,
  TEXT_PIECES,
  tokensFor,
  type WireFormat,
} from "./openai_format.ts";
import type { CompletionStep, RecordedRequest } from "./types.ts";

/** `{"type":"error","error":{"type","message"}}`, the Anthropic error shape. */
export function anthropicErrorBody(message: string, type = "invalid_request_error"): string {
  return JSON.stringify({
    type: "error",
    error: { type, message },
    request_id: "req_fake_0000000000000000",
  });
}

/** Anthropic usage: `input_tokens` excludes cache reads and cache writes. */
export function computeAnthropicUsage(
  step: CompletionStep,
  req: RecordedRequest,
): Record<string, number> {
  const encoder = new TextEncoder();
  const prompt = tokensFor(encoder.encode(req.bodyText).byteLength);
  const read = Math.min(prompt, Math.floor(req.sharedPrefixBytes / 4));
  // Everything up to the last breakpoint is written to the cache unless it was read.
  const marker = req.bodyText.lastIndexOf('"cache_control"');
  const cachedPrefix = marker < 0
    ? 0
    : tokensFor(encoder.encode(req.bodyText.slice(0, marker)).byteLength);
  const created = Math.max(0, Math.min(prompt - read, cachedPrefix - read));
  const outputChars = (step.text?.length ?? 0) + (step.reasoning?.length ?? 0) +
    (step.toolCalls ?? []).reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  return {
    input_tokens: prompt - read - created,
    cache_creation_input_tokens: created,
    cache_read_input_tokens: read,
    output_tokens: tokensFor(outputChars),
  };
}

/** The `anthropic` format. */
export const anthropicFormat: WireFormat = {
  matches(method, path) {
    return method === "POST" && path.split("?")[0].endsWith("/messages");
  },

  frames(step, req, seq) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const model = step.model ?? (typeof body.model === "string" ? body.model : "fake-model");
    const nl = step.lineEnding === "crlf" ? "\r\n" : "\n";
    const event = (type: string, payload: Record<string, unknown>): string =>
      `event: ${type}${nl}data: ${JSON.stringify({ type, ...payload })}${nl}${nl}`;
    const ping = event("ping", {});
    const usage = { ...computeAnthropicUsage(step, req), ...(step.usage ?? {}) };
    const frames: string[] = [
      event("message_start", {
        message: {
          id: `msg_fake${String(seq).padStart(6, "0")}`,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1, service_tier: "standard" },
        },
      }),
      ping,
    ];
    let index = 0;
    if (step.reasoning) {
      frames.push(event("content_block_start", {
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      }));
      for (const piece of splitPieces(step.reasoning, TEXT_PIECES)) {
        frames.push(event("content_block_delta", {
          index,
          delta: { type: "thinking_delta", thinking: piece },
        }));
      }
      const signature = step.reasoningSignature ?? `EqQBCkYIARgCKkD${btoa(`sig-${seq}`)}`;
      frames.push(event("content_block_delta", {
        index,
        delta: { type: "signature_delta", signature },
      }));
      frames.push(event("content_block_stop", { index }));
      index++;
    }
    if (step.text) {
      frames.push(event("content_block_start", {
        index,
        content_block: { type: "text", text: "" },
      }));
      for (const piece of splitPieces(step.text, TEXT_PIECES)) {
        frames.push(event("content_block_delta", {
          index,
          delta: { type: "text_delta", text: piece },
        }));
        if (frames.length % 12 === 0) frames.push(ping);
      }
      frames.push(event("content_block_stop", { index }));
      index++;
    }
    if (step.unknownEvents) {
      frames.push(event("content_block_future", { index: 99, detail: "ignored" }));
      frames.push(`event: ping${nl}data: {"type":"ping","extra":{"nested":true}}${nl}${nl}`);
    }
    (step.toolCalls ?? []).forEach((call, i) => {
      const id = call.id ?? `toolu_fake${seq}_${i}`;
      frames.push(event("content_block_start", {
        index,
        content_block: { type: "tool_use", id, name: call.name, input: {} },
      }));
      frames.push(event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: "" },
      }));
      for (const piece of splitPieces(call.arguments, ARG_PIECES)) {
        frames.push(event("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        }));
      }
      frames.push(event("content_block_stop", { index }));
      index++;
    });

    if (step.streamError) {
      const { message, type = "overloaded_error" } = step.streamError;
      frames.push(event("error", { error: { type, message } }));
      return frames;
    }
    if (step.end === "truncated") return frames;
    const stop = step.finishReason ?? (step.toolCalls?.length ? "tool_use" : "end_turn");
    frames.push(event("message_delta", {
      delta: { stop_reason: stop, stop_sequence: null },
      usage,
    }));
    if (step.end !== "no-done") frames.push(event("message_stop", {}));
    return frames;
  },

  errorBody(status, req) {
    switch (status) {
      case 400:
        return anthropicErrorBody("Invalid request: the request body could not be processed.");
      case 401:
        return req.headers["x-api-key"]
          ? anthropicErrorBody("invalid x-api-key", "authentication_error")
          : anthropicErrorBody("x-api-key header is required", "authentication_error");
      case 402:
        return anthropicErrorBody("Insufficient Balance", "billing_error");
      case 403:
        return anthropicErrorBody(
          "Your API key does not have permission to use the specified resource.",
          "permission_error",
        );
      case 404:
        return anthropicErrorBody("The requested resource could not be found.", "not_found_error");
      case 413:
        return anthropicErrorBody(
          "Request exceeds the maximum allowed number of bytes.",
          "request_too_large",
        );
      case 429:
        return anthropicErrorBody(
          "Number of request tokens has exceeded your per-minute rate limit.",
          "rate_limit_error",
        );
      case 500:
        return anthropicErrorBody("Internal server error", "api_error");
      case 529:
        return anthropicErrorBody("Overloaded", "overloaded_error");
      default:
        return anthropicErrorBody(
          `HTTP ${status}`,
          status >= 500 ? "api_error" : "invalid_request_error",
        );
    }
  },

  errorHeaders(status): Record<string, string> {
    // Real servers ask for seconds; the fake asks for none so retry tests stay fast.
    return {
      "request-id": "req_fake_0000000000000000",
      ...(status === 429 || status === 529 ? { "retry-after": "0" } : {}),
    };
  },

  notFoundBody(method, path) {
    return anthropicErrorBody(`Not Found (${method} ${path})`, "not_found_error");
  },

  fakeErrorBody(message) {
    return anthropicErrorBody(message, "fake_llm_error");
  },
};
