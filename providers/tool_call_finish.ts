/**
 * The last step every provider kind applies to its chunk stream: tool calls are held until the
 * reply finishes, then a call cut off by the output limit is repaired or marked, and calls the
 * model wrote as text are recovered. Wire-neutral.
 *
 * @module
 */
import { repairTruncatedJson } from "./tool_call_repair.ts";
import { recoverToolCalls } from "./tool_call_recovery.ts";
import type { Chunk, FinishReason, ToolCall } from "./types.ts";

/** Options for {@link finishToolCalls}. */
export interface FinishOptions {
  /** Names of the tools offered in the request; only these are recovered from text. */
  toolNames: readonly string[];
}

/**
 * Passes chunks through, holding `tool_call` and `usage` chunks until `done`. Then:
 * - at a `length` stop, the last call (the only one that can be cut off) keeps its arguments
 *   when they parse, is repaired when only closing brackets are missing, and otherwise gets an
 *   `argumentsError` so the tool pipeline tells the model instead of running it;
 * - when the reply made no structured call and stopped normally, calls written into the text
 *   or reasoning are recovered for known tool names, and the finish becomes `tool_calls`.
 */
export async function* finishToolCalls(
  source: AsyncIterable<Chunk>,
  opts: FinishOptions,
): AsyncGenerator<Chunk> {
  const calls: ToolCall[] = [];
  // Usage is held too, so the order stays calls, usage, done whatever the wire order was.
  const usage: Chunk[] = [];
  let text = "";
  let reasoning = "";
  for await (const chunk of source) {
    if (chunk.type === "tool_call") {
      calls.push(chunk.call);
      continue;
    }
    if (chunk.type === "usage") {
      usage.push(chunk);
      continue;
    }
    if (chunk.type === "text") text += chunk.text;
    if (chunk.type === "reasoning") reasoning += chunk.text;
    if (chunk.type !== "done") {
      yield chunk;
      continue;
    }
    let finishReason: FinishReason = chunk.finishReason;
    if (calls.length > 0 && finishReason === "length") {
      calls[calls.length - 1] = checkTruncated(calls[calls.length - 1]);
    }
    if (calls.length === 0 && finishReason !== "length" && finishReason !== "content_filter") {
      const recovered = recoverToolCalls({ text, reasoning }, opts.toolNames);
      if (recovered.length > 0) {
        calls.push(...recovered);
        finishReason = "tool_calls";
      }
    }
    for (const call of calls.splice(0)) yield { type: "tool_call", call };
    yield* usage.splice(0);
    yield { type: "done", finishReason };
  }
}

function checkTruncated(call: ToolCall): ToolCall {
  if (call.arguments.trim() === "") {
    return {
      ...call,
      argumentsError: `This ${call.name} call was cut off at the output token limit before ` +
        "any arguments were written, so it was not run. Make the call again with shorter " +
        "output, splitting large content over several calls.",
    };
  }
  const repaired = repairTruncatedJson(call.arguments);
  if (repaired !== undefined) return { ...call, arguments: repaired };
  return {
    ...call,
    argumentsError: `The arguments of this ${call.name} call were cut off at the output token ` +
      `limit after ${call.arguments.length} characters, so it was not run. Make the call ` +
      "again with shorter arguments, splitting large content over several calls.",
  };
}
