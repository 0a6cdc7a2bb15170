/**
 * Script and record types of the fake LLM server.
 *
 * @module
 */

/**
 * Wire formats the fake can speak: OpenAI-compatible Chat Completions (`…/chat/completions`),
 * the Anthropic Messages API (`…/messages`) and the OpenAI Responses API (`…/responses`).
 */
export type FakeFormat = "openai" | "anthropic" | "responses";

/** A tool call the fake model makes. */
export interface FakeToolCall {
  /** Defaults to a generated `call_…` id. */
  id?: string;
  /** Tool the model calls. */
  name: string;
  /** Raw argument JSON text, streamed in awkward pieces. */
  arguments: string;
}

/** A streamed completion. */
export interface CompletionStep {
  /** Assistant text, streamed in pieces. */
  text?: string;
  /** Reasoning text, streamed before the answer. */
  reasoning?: string;
  /** Tool calls the model makes in this step. */
  toolCalls?: FakeToolCall[];
  /**
   * Wire finish: `finish_reason` (openai; default `tool_calls` or `stop`), `stop_reason`
   * (anthropic; default `tool_use` or `end_turn`), or for responses an
   * `incomplete_details.reason` such as `max_output_tokens` (default: completed).
   */
  finishReason?: string;
  /**
   * Anthropic: the thinking block's signature (default: generated when there is reasoning).
   * Responses: the reasoning item's `encrypted_content` (default: generated when the request
   * asked for `reasoning.encrypted_content`).
   */
  reasoningSignature?: string;
  /** Responses: stream reasoning as summary deltas (default) or as raw reasoning text. */
  responsesReasoning?: "summary" | "text";
  /** Send plausible event types no client knows yet, which a decoder must ignore. */
  unknownEvents?: boolean;
  /**
   * Merged over the computed usage object. A key set to `undefined` is removed, so a test can
   * strip the DeepSeek cache fields to get a pure OpenAI shape.
   */
  usage?: Record<string, unknown>;
  /** Which usage fields the server reports. Default `deepseek` (which includes OpenAI's too). */
  usageStyle?: "deepseek" | "openai";
  /**
   * `separate`: a final chunk with `choices: []` (OpenAI). `finish-chunk`: usage rides on the
   * chunk that carries `finish_reason` (some DeepSeek deployments). Default `separate`.
   */
  usagePlacement?: "separate" | "finish-chunk";
  /** Delta field for reasoning: DeepSeek's `reasoning_content` (default) or OpenRouter's `reasoning`. */
  reasoningField?: "reasoning_content" | "reasoning";
  /** Split the SSE byte stream into HTTP chunks of this many bytes. Default: a cycle of awkward sizes. */
  chunkBytes?: number;
  /** Pause between SSE frames, in milliseconds. */
  delayMs?: number;
  /** Model id echoed in chunks; defaults to the request's `model`. */
  model?: string;
  /**
   * Instead of finishing, send an in-stream error after the content and end the body: openai
   * `data: {"error": …}`, anthropic `event: error`, responses `event: error` (or
   * `response.failed` with `streamErrorEvent`).
   */
  streamError?: { message: string; type?: string; code?: string | number | null };
  /** Responses: which event carries `streamError`. Default `error`. */
  streamErrorEvent?: "error" | "response.failed";
  /**
   * `done` (default): finish, usage, `[DONE]` (anthropic: `message_delta`, `message_stop`).
   * `no-done`: omit `[DONE]` / `message_stop`. `truncated`: end the body cleanly right after
   * the content, with no finish reason, usage or end marker.
   */
  end?: "done" | "no-done" | "truncated";
  /** Line terminator inside frames. Default `lf`. */
  lineEnding?: "lf" | "crlf";
}

/** An HTTP error response. Without a body, a realistic one for the status is generated. */
export interface ErrorStep {
  /** HTTP status, e.g. 429 or 500. */
  status: number;
  /** Response body; an object is sent as JSON. */
  body?: string | Record<string, unknown>;
  /** Extra response headers, e.g. `retry-after`. */
  headers?: Record<string, string>;
}

/** The connection is destroyed: before any response byte, or after `afterBytes` of a stream. */
export type ResetStep =
  | { reset: "before-headers" }
  | ({ reset: "mid-stream"; afterBytes?: number } & CompletionStep);

/** The server goes silent until the client gives up or the fake is closed. */
export type HangStep =
  | { hang: "before-headers" }
  | ({ hang: "mid-stream"; afterBytes?: number } & CompletionStep);

/** One scripted response. */
export type FakeStep = CompletionStep | ErrorStep | ResetStep | HangStep;

/** A request the fake received. */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** Path including the query string. */
  path: string;
  /** Header names lowercased. */
  headers: Record<string, string>;
  /** The raw request body. */
  bodyText: string;
  /** Parsed JSON body, or undefined when it is not JSON. */
  body: unknown;
  /** Bytes at the start of this body identical to the previous request's body (0 for the first). */
  sharedPrefixBytes: number;
  /** `Date.now()` when the request was fully received. */
  time: number;
}

/** A script: fixed steps in order, or a function choosing the step for each request. */
export type FakeScript =
  | readonly FakeStep[]
  | ((req: RecordedRequest, index: number) => FakeStep | undefined);

/** Options for `startFakeLlm`. */
export interface FakeLlmOptions {
  /** The responses to give, in order or chosen per request. */
  script: FakeScript;
  /** Answer only this format's endpoint. Default: pick the format by the request path. */
  format?: FakeFormat;
  /** Default 0: any free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  hostname?: string;
  /**
   * Keep connections open between requests. Default false: every response says
   * `connection: close`, because fetch silently resends a request whose reused connection
   * drops before the response, which would hide a scripted `reset: "before-headers"`.
   */
  keepAlive?: boolean;
  /**
   * Models the endpoint lists at `GET …/models`, OpenAI-style (`{"object":"list","data":[{"id"}]}`),
   * or Anthropic-style (`{"data":[{"type":"model","id"}],"has_more":false}`) when the request
   * carries `anthropic-version`. An entry may state its window (`context_length`, as
   * OpenRouter does). Without this option that path is not an endpoint (404). Listing
   * requests are recorded but use no script step.
   */
  models?: readonly (string | { id: string; context_length?: number })[];
  /**
   * The one API key the fake accepts (Bearer or `x-api-key`); any other gets the format's
   * realistic 401 and uses no script step. Default: every key is accepted.
   */
  apiKey?: string;
}

/** A running fake server. */
export interface FakeLlm {
  /** Base URL, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Stops listening, drops open connections (including hung ones) and waits for handlers. */
  close(): Promise<void>;
}
