/**
 * The OpenAI Responses wire encoding of the fake: `response.*` SSE events with
 * `sequence_number`s as OpenAI sends them, and its JSON error bodies (the OpenAI shape).
 *
 * @module
 */
import {
  ARG_PIECES,
  openAiErrorBody,
  openAiFormat,
  splitPieces,
  TEXT_PIECES,
  tokensFor,
  type WireFormat,
} from "./openai_format.ts";
import type { CompletionStep, RecordedRequest } from "./types.ts";

/** Responses usage: `input_tokens` includes the cached ones. */
export function computeResponsesUsage(
  step: CompletionStep,
  req: RecordedRequest,
): Record<string, unknown> {
  const prompt = tokensFor(new TextEncoder().encode(req.bodyText).byteLength);
  const hit = Math.min(prompt, Math.floor(req.sharedPrefixBytes / 4));
  const reasoning = tokensFor(step.reasoning?.length ?? 0);
  const output = tokensFor(
    (step.text?.length ?? 0) + (step.reasoning?.length ?? 0) +
      (step.toolCalls ?? []).reduce((n, c) => n + c.name.length + c.arguments.length, 0),
  );
  return {
    input_tokens: prompt,
    input_tokens_details: { cached_tokens: hit },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: prompt + output,
  };
}

/** The `responses` format. */
export const responsesFormat: WireFormat = {
  matches(method, path) {
    return method === "POST" && path.split("?")[0].endsWith("/responses");
  },

  frames(step, req, seq) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const model = step.model ?? (typeof body.model === "string" ? body.model : "fake-model");
    const wantsEncrypted = Array.isArray(body.include) &&
      body.include.includes("reasoning.encrypted_content");
    const nl = step.lineEnding === "crlf" ? "\r\n" : "\n";
    let sequence = 0;
    const event = (type: string, payload: Record<string, unknown>): string =>
      `event: ${type}${nl}data: ${
        JSON.stringify({ type, sequence_number: sequence++, ...payload })
      }${nl}${nl}`;
    const id = `resp_fake${String(seq).padStart(6, "0")}`;
    const response = (status: string, extra: Record<string, unknown> = {}) => ({
      id,
      object: "response",
      created_at: Math.floor(req.time / 1000),
      status,
      model,
      output: [],
      usage: null,
      ...extra,
    });
    const frames = [
      event("response.created", { response: response("in_progress") }),
      event("response.in_progress", { response: response("in_progress") }),
    ];
    const output: Record<string, unknown>[] = [];
    let outputIndex = 0;

    if (step.reasoning) {
      const itemId = `rs_fake${seq}`;
      frames.push(event("response.output_item.added", {
        output_index: outputIndex,
        item: { id: itemId, type: "reasoning", summary: [] },
      }));
      const item: Record<string, unknown> = { id: itemId, type: "reasoning", summary: [] };
      if (step.responsesReasoning === "text") {
        for (const delta of splitPieces(step.reasoning, TEXT_PIECES)) {
          frames.push(event("response.reasoning_text.delta", {
            item_id: itemId,
            output_index: outputIndex,
            content_index: 0,
            delta,
          }));
        }
        item.content = [{ type: "reasoning_text", text: step.reasoning }];
      } else {
        const part = { type: "summary_text", text: "" };
        frames.push(event("response.reasoning_summary_part.added", {
          item_id: itemId,
          output_index: outputIndex,
          summary_index: 0,
          part,
        }));
        for (const delta of splitPieces(step.reasoning, TEXT_PIECES)) {
          frames.push(event("response.reasoning_summary_text.delta", {
            item_id: itemId,
            output_index: outputIndex,
            summary_index: 0,
            delta,
          }));
        }
        frames.push(event("response.reasoning_summary_text.done", {
          item_id: itemId,
          output_index: outputIndex,
          summary_index: 0,
          text: step.reasoning,
        }));
        item.summary = [{ type: "summary_text", text: step.reasoning }];
      }
      if (wantsEncrypted || step.reasoningSignature !== undefined) {
        item.encrypted_content = step.reasoningSignature ??
          `gAAAAABfake${btoa(`enc-${seq}`)}`;
      }
      frames.push(event("response.output_item.done", { output_index: outputIndex, item }));
      output.push(item);
      outputIndex++;
    }
    if (step.text) {
      const itemId = `msg_fake${seq}`;
      const added = {
        id: itemId,
        type: "message",
        status: "in_progress",
        role: "assistant",
        content: [],
      };
      frames.push(event("response.output_item.added", { output_index: outputIndex, item: added }));
      frames.push(event("response.content_part.added", {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        part: { type: "output_text", annotations: [], text: "" },
      }));
      for (const delta of splitPieces(step.text, TEXT_PIECES)) {
        frames.push(event("response.output_text.delta", {
          item_id: itemId,
          output_index: outputIndex,
          content_index: 0,
          delta,
          logprobs: [],
        }));
      }
      const part = { type: "output_text", annotations: [], text: step.text };
      frames.push(event("response.output_text.done", {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        text: step.text,
        logprobs: [],
      }));
      frames.push(event("response.content_part.done", {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        part,
      }));
      const item = { ...added, status: "completed", content: [part] };
      frames.push(event("response.output_item.done", { output_index: outputIndex, item }));
      output.push(item);
      outputIndex++;
    }
    if (step.unknownEvents) {
      frames.push(event("response.future_feature.delta", { output_index: 42, delta: "?" }));
      frames.push(`: keep-alive${nl}${nl}`);
    }
    (step.toolCalls ?? []).forEach((call, i) => {
      const itemId = `fc_fake${seq}_${i}`;
      const callId = call.id ?? `call_fake${seq}_${i}`;
      const added = {
        id: itemId,
        type: "function_call",
        status: "in_progress",
        arguments: "",
        call_id: callId,
        name: call.name,
      };
      frames.push(event("response.output_item.added", { output_index: outputIndex, item: added }));
      for (const delta of splitPieces(call.arguments, ARG_PIECES)) {
        frames.push(event("response.function_call_arguments.delta", {
          item_id: itemId,
          output_index: outputIndex,
          delta,
        }));
      }
      frames.push(event("response.function_call_arguments.done", {
        item_id: itemId,
        output_index: outputIndex,
        arguments: call.arguments,
      }));
      const item = { ...added, status: "completed", arguments: call.arguments };
      frames.push(event("response.output_item.done", { output_index: outputIndex, item }));
      output.push(item);
      outputIndex++;
    });

    if (step.streamError) {
      const { message, type = "server_error", code = "server_error" } = step.streamError;
      if (step.streamErrorEvent === "response.failed") {
        frames.push(event("response.failed", {
          response: response("failed", { output, error: { code: code ?? type, message } }),
        }));
      } else {
        frames.push(event("error", { code: code ?? type, message, param: null }));
      }
      return frames;
    }
    if (step.end === "truncated") return frames;
    const usage = JSON.parse(
      JSON.stringify({ ...computeResponsesUsage(step, req), ...step.usage }),
    );
    if (step.finishReason !== undefined && step.finishReason !== "completed") {
      frames.push(event("response.incomplete", {
        response: response("incomplete", {
          output,
          usage,
          incomplete_details: { reason: step.finishReason },
        }),
      }));
    } else {
      frames.push(event("response.completed", {
        response: response("completed", { output, usage, incomplete_details: null }),
      }));
    }
    return frames;
  },

  errorBody(status, req) {
    return openAiFormat.errorBody(status, req);
  },

  errorHeaders(status) {
    return openAiFormat.errorHeaders(status);
  },

  notFoundBody(method, path) {
    return openAiErrorBody(`Invalid URL (${method} ${path})`);
  },

  fakeErrorBody(message) {
    return openAiErrorBody(message, "fake_llm_error", "fake_llm_error");
  },
};
