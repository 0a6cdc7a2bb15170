/**
 * The OpenAI-compatible Chat Completions wire encoding of the fake: `chat.completion.chunk`
 * SSE frames as OpenAI and DeepSeek send them, and their JSON error bodies.
 *
 * @module
 */
import type { CompletionStep, RecordedRequest } from "./types.ts";

/** What a wire format must provide to the fake server. */
export interface WireFormat {
  /** Whether a request path is this format's completion endpoint. */
  matches(method: string, path: string): boolean;
  /** The complete SSE body for a completion, as frames (each ends with its blank line). */
  frames(step: CompletionStep, req: RecordedRequest, seq: number): string[];
  /** A realistic error body for a status. */
  errorBody(status: number, req: RecordedRequest): string;
  /** Extra headers that come with an error status (e.g. `retry-after`). */
  errorHeaders(status: number): Record<string, string>;
  /** The body for a path that is not an endpoint. */
  notFoundBody(method: string, path: string): string;
  /** The body of a 500 the fake itself raises (script exhausted or broken). */
  fakeErrorBody(message: string): string;
}

/** `{"error":{"message","type","param","code"}}`, the OpenAI and DeepSeek error shape. */
export function openAiErrorBody(
  message: string,
  type: string | null = "invalid_request_error",
  code: string | null = null,
): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

/** Estimated tokens for a byte or character count (the usual ~4 per token). */
export function tokensFor(count: number): number {
  return Math.ceil(count / 4);
}

/** The usage object the fake reports, before the step's overrides. */
export function computeUsage(step: CompletionStep, req: RecordedRequest): Record<string, unknown> {
  const bodyBytes = new TextEncoder().encode(req.bodyText).byteLength;
  const prompt = tokensFor(bodyBytes);
  const hit = Math.min(prompt, Math.floor(req.sharedPrefixBytes / 4));
  const reasoningChars = step.reasoning?.length ?? 0;
  const outputChars = (step.text?.length ?? 0) + reasoningChars +
    (step.toolCalls ?? []).reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const completion = tokensFor(outputChars);
  const base = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  if (step.usageStyle === "openai") {
    return {
      ...base,
      prompt_tokens_details: { cached_tokens: hit, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: tokensFor(reasoningChars),
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    };
  }
  return {
    ...base,
    prompt_tokens_details: { cached_tokens: hit },
    prompt_cache_hit_tokens: hit,
    prompt_cache_miss_tokens: prompt - hit,
    ...(reasoningChars > 0
      ? { completion_tokens_details: { reasoning_tokens: tokensFor(reasoningChars) } }
      : {}),
  };
}

/** Irregular piece sizes so deltas never line up with words or JSON tokens. */
export const TEXT_PIECES: readonly number[] = [3, 7, 2, 11, 5, 1, 8];
/** Piece sizes for tool-call arguments. */
export const ARG_PIECES: readonly number[] = [1, 4, 7, 2, 9, 3];

/** Splits by code points into pieces of cycling sizes. */
export function splitPieces(text: string, sizes: readonly number[]): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0, k = 0; i < points.length; k++) {
    const size = sizes[k % sizes.length];
    pieces.push(points.slice(i, i + size).join(""));
    i += size;
  }
  return pieces;
}

/** The `openai` format. */
export const openAiFormat: WireFormat = {
  matches(method, path) {
    return method === "POST" && path.split("?")[0].endsWith("/chat/completions");
  },

  frames(step, req, seq) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const model = step.model ?? (typeof body.model === "string" ? body.model : "fake-model");
    const includeUsage =
      (body.stream_options as Record<string, unknown> | undefined)?.include_usage === true;
    // DeepSeek reports usage whether or not it was asked for; OpenAI only when asked.
    const sendUsage = includeUsage || (step.usageStyle ?? "deepseek") === "deepseek";
    const envelope = {
      id: `chatcmpl-fake${String(seq).padStart(6, "0")}`,
      object: "chat.completion.chunk",
      created: Math.floor(req.time / 1000),
      model,
      system_fingerprint: "fp_fake_0001",
    };
    const nl = step.lineEnding === "crlf" ? "\r\n" : "\n";
    const frame = (payload: unknown): string => `data: ${JSON.stringify(payload)}${nl}${nl}`;
    const chunk = (delta: unknown, finish: string | null = null, extra = {}): string =>
      frame({
        ...envelope,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(includeUsage ? { usage: null } : {}),
        ...extra,
      });
    const keepAlive = `: keep-alive${nl}${nl}`;

    const frames: string[] = [chunk({ role: "assistant", content: "" }), keepAlive];
    const reasoningField = step.reasoningField ?? "reasoning_content";
    for (const piece of splitPieces(step.reasoning ?? "", TEXT_PIECES)) {
      frames.push(chunk({ content: null, [reasoningField]: piece }));
    }
    for (const piece of splitPieces(step.text ?? "", TEXT_PIECES)) {
      frames.push(chunk({ content: piece }));
      if (frames.length % 12 === 0) frames.push(keepAlive);
    }
    if (step.unknownEvents) {
      frames.push(`event: future_event${nl}data: {"object":"future.event","value":1}${nl}${nl}`);
      frames.push(frame({ ...envelope, choices: [] }));
    }
    (step.toolCalls ?? []).forEach((call, index) => {
      const id = call.id ?? `call_fake${seq}_${index}`;
      frames.push(chunk({
        tool_calls: [{
          index,
          id,
          type: "function",
          function: { name: call.name, arguments: "" },
        }],
      }));
      for (const piece of splitPieces(call.arguments, ARG_PIECES)) {
        frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });

    if (step.streamError) {
      const { message, type = "server_error", code = null } = step.streamError;
      frames.push(frame({ error: { message, type, param: null, code } }));
      return frames;
    }
    if (step.end === "truncated") return frames;

    const finish = step.finishReason ?? (step.toolCalls?.length ? "tool_calls" : "stop");
    const usage = JSON.parse(JSON.stringify({ ...computeUsage(step, req), ...step.usage }));
    if (sendUsage && step.usagePlacement === "finish-chunk") {
      frames.push(chunk({}, finish, { usage }));
    } else {
      frames.push(chunk({}, finish));
      if (sendUsage) frames.push(frame({ ...envelope, choices: [], usage }));
    }
    if (step.end !== "no-done") frames.push(`data: [DONE]${nl}${nl}`);
    return frames;
  },

  errorBody(status, req) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    switch (status) {
      case 400:
        return openAiErrorBody("Invalid request: the request body could not be processed.");
      case 401: {
        const key = (req.headers["authorization"] ?? "").replace(/^Bearer\s+/i, "");
        if (key === "") {
          return openAiErrorBody(
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
          );
        }
        return openAiErrorBody(
          `Incorrect API key provided: ${
            maskKey(key)
          }. You can find your API key at https://platform.openai.com/account/api-keys.`,
          "invalid_request_error",
          "invalid_api_key",
        );
      }
      case 402:
        return openAiErrorBody("Insufficient Balance", "unknown_error", "invalid_request_error");
      case 403:
        return openAiErrorBody(
          "Your organization does not have access to this model.",
          "invalid_request_error",
          "model_not_found",
        );
      case 404:
        return openAiErrorBody(
          `The model \`${
            String(body.model ?? "")
          }\` does not exist or you do not have access to it.`,
          "invalid_request_error",
          "model_not_found",
        );
      case 422:
        return openAiErrorBody(
          "Failed to deserialize the JSON body into the target type",
          "invalid_request_error",
        );
      case 429:
        return openAiErrorBody(
          "Rate limit reached for requests. Please try again later.",
          "requests",
          "rate_limit_exceeded",
        );
      case 500:
        return openAiErrorBody(
          "The server had an error while processing your request. Sorry about that!",
          "server_error",
        );
      case 502:
      case 503:
      case 529:
        return openAiErrorBody("Server overloaded, please retry shortly.", "server_error");
      default:
        return openAiErrorBody(`HTTP ${status}`, status >= 500 ? "server_error" : "api_error");
    }
  },

  errorHeaders(status): Record<string, string> {
    // Real servers ask for seconds; the fake asks for none so retry tests stay fast.
    return status === 429 ? { "retry-after": "0" } : {};
  },

  notFoundBody(method, path) {
    return openAiErrorBody(`Invalid URL (${method} ${path})`);
  },

  fakeErrorBody(message) {
    return openAiErrorBody(message, "fake_llm_error", "fake_llm_error");
  },
};

function maskKey(key: string): string {
  if (key.length <= 8) return "*".repeat(key.length);
  return `${key.slice(0, 3)}${"*".repeat(Math.min(key.length - 7, 20))}${key.slice(-4)}`;
}
