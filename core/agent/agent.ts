/**
 * The single-model agent loop (spec §3.4): build the request, stream the reply, run the
 * complete tool calls, append their results, repeat until the model stops calling tools.
 *
 * @module
 */
import type { Message, Provider, ProviderRequest, ToolCall } from "../../providers/types.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import type { ToolContext, ToolResult } from "../../tools/types.ts";
import { ReasonixError } from "../../errors.ts";
import type { Price } from "../config/types.ts";
import { addUsage, costOf, emptyTotals } from "./cost.ts";
import type { AgentEvent, Runner, RunStatus, UserInput } from "./events.ts";
import { AsyncQueue } from "./queue.ts";
import type { Session } from "./session.ts";
import { executeToolCall, type ToolGate } from "./tool_exec.ts";

/** What the loop needs. Everything is injected; the loop holds no global state. */
export interface AgentOptions {
  provider: Provider;
  /** Model id sent on the wire. */
  model: string;
  session: Session;
  registry: ToolRegistry;
  /** Stable system prompt: no timestamps, no per-project text. */
  systemPrompt: string;
  /** Shared tool context; the loop adds the per-call signal and progress callback. */
  toolContext: Omit<ToolContext, "signal" | "progress">;
  /** Upper bound on model requests per run. */
  maxTurns: number;
  temperature?: number;
  reasoningEffort?: string;
  /** Output cap for a request, given the estimated prompt size in tokens. */
  outputBudget?(promptTokens: number): number | undefined;
  price?: Price;
  gate?: ToolGate;
  /** Upper bound for one tool call. Default 10 minutes. */
  toolTimeoutMs?: number;
  /**
   * Returns the text of the user message actually appended: volatile facts (date,
   * environment) ride the current user turn, never the system prompt.
   */
  decorateUserTurn?(text: string, session: Session): string;
}

const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60 * 1000;

/** Rough token estimate for output budgeting: ~4 bytes of JSON per token. */
function estimatePromptTokens(req: ProviderRequest): number {
  let chars = req.system.length;
  for (const m of req.messages) {
    chars += m.content.length + (m.reasoning?.length ?? 0);
    for (const c of m.toolCalls ?? []) chars += c.arguments.length + c.name.length;
  }
  for (const t of req.tools) chars += t.description.length + JSON.stringify(t.parameters).length;
  return Math.ceil(chars / 4);
}

/** Splits calls into batches: consecutive read-only calls run together, writers alone. */
function batches(calls: ToolCall[], isReadOnly: (name: string) => boolean): ToolCall[][] {
  const out: ToolCall[][] = [];
  let reads: ToolCall[] = [];
  for (const call of calls) {
    if (isReadOnly(call.name)) {
      reads.push(call);
      continue;
    }
    if (reads.length) out.push(reads);
    reads = [];
    out.push([call]);
  }
  if (reads.length) out.push(reads);
  return out;
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof DOMException && error.name === "AbortError");
}

/** The single-model runner. */
export class Agent implements Runner {
  readonly #opts: AgentOptions;

  constructor(opts: AgentOptions) {
    this.#opts = opts;
  }

  /** Runs one user input to completion, cancellation or failure. */
  async *run(input: UserInput, opts: { signal: AbortSignal }): AsyncIterable<AgentEvent> {
    const o = this.#opts;
    const { session, registry } = o;
    const signal = opts.signal;
    const totals = emptyTotals(o.price);
    let turns = 0;
    let toolCalls = 0;
    let finalText = "";
    let status: RunStatus = "completed";
    let failure: { code: string; message: string } | undefined;

    session.append({
      role: "user",
      content: o.decorateUserTurn ? o.decorateUserTurn(input.text, session) : input.text,
    });

    while (true) {
      if (signal.aborted) {
        status = "cancelled";
        break;
      }
      if (turns >= o.maxTurns) {
        status = "max_turns";
        break;
      }
      turns++;
      yield { type: "turn_start", turn: turns };

      const request: ProviderRequest = {
        model: o.model,
        system: o.systemPrompt,
        messages: session.messages,
        tools: registry.schemas(),
        temperature: o.temperature,
        reasoningEffort: o.reasoningEffort,
      };
      if (o.outputBudget) request.maxOutputTokens = o.outputBudget(estimatePromptTokens(request));
      yield { type: "request_start", turn: turns, model: o.model };

      let text = "";
      let reasoning = "";
      let signature: string | undefined;
      const calls: ToolCall[] = [];
      let streamError: unknown;
      try {
        for await (const chunk of o.provider.stream(request, { signal })) {
          switch (chunk.type) {
            case "text":
              text += chunk.text;
              yield { type: "text", text: chunk.text };
              break;
            case "reasoning":
              reasoning += chunk.text;
              yield { type: "reasoning", text: chunk.text };
              break;
            case "reasoning_signature":
              signature = chunk.signature;
              break;
            case "tool_call":
              calls.push(chunk.call);
              break;
            case "usage": {
              const cost = o.price ? costOf(chunk.usage, o.price) : undefined;
              addUsage(totals, chunk.usage, cost);
              yield {
                type: "usage",
                turn: turns,
                usage: chunk.usage,
                cost,
                currency: o.price?.currency,
              };
              break;
            }
            case "done":
              if (chunk.finishReason === "length" && calls.length === 0) {
                yield {
                  type: "notice",
                  level: "warning",
                  message: "The model stopped at its output limit; the answer may be incomplete.",
                };
              }
              break;
          }
        }
      } catch (error) {
        streamError = error;
      }

      if (streamError !== undefined) {
        // Keep what the user already saw; drop incomplete tool calls (none were executed).
        if (text || reasoning) {
          session.append({ role: "assistant", content: text, reasoning: reasoning || undefined });
          finalText = text;
        }
        if (isAbort(streamError, signal)) {
          status = "cancelled";
        } else {
          status = "error";
          failure = {
            code: streamError instanceof ReasonixError ? streamError.code : "internal",
            message: (streamError as Error)?.message ?? String(streamError),
          };
        }
        break;
      }

      const assistant: Message = { role: "assistant", content: text };
      if (reasoning) assistant.reasoning = reasoning;
      if (signature) assistant.reasoningSignature = signature;
      if (calls.length) assistant.toolCalls = calls;
      session.append(assistant);
      finalText = text;
      if (calls.length === 0) break;

      toolCalls += calls.length;
      yield* this.#runTools(calls, signal);
      if (signal.aborted) {
        status = "cancelled";
        break;
      }
    }

    if (status === "cancelled") this.#closeOpenCalls("Cancelled by the user before it ran.");
    yield {
      type: "done",
      status,
      text: finalText,
      turns,
      toolCalls,
      usage: totals,
      ...(failure ? { error: failure } : {}),
    };
  }

  /** Gives every unanswered tool call a result so the conversation stays well-formed. */
  #closeOpenCalls(reason: string): void {
    const session = this.#opts.session;
    const open = new Set(session.unansweredToolCalls());
    if (!open.size) return;
    for (const message of [...session.messages]) {
      for (const call of message.toolCalls ?? []) {
        if (!open.has(call.id)) continue;
        session.append({
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: reason,
          isError: true,
        });
      }
    }
  }

  /** Executes calls (read-only ones in parallel) and appends results in the model's order. */
  async *#runTools(calls: ToolCall[], signal: AbortSignal): AsyncIterable<AgentEvent> {
    const o = this.#opts;
    const isReadOnly = (name: string) => o.registry.get(name)?.readOnly ?? true;
    for (const batch of batches(calls, isReadOnly)) {
      if (signal.aborted) return;
      const events = new AsyncQueue<AgentEvent>();
      const results: (ToolResult | undefined)[] = new Array(batch.length);
      const running = batch.map(async (call, i) => {
        const started = performance.now();
        events.push({ type: "tool_start", call });
        try {
          const result = await executeToolCall(call, {
            registry: o.registry,
            context: o.toolContext,
            signal,
            gate: o.gate,
            timeoutMs: o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
            onProgress: (message) =>
              events.push({ type: "tool_progress", callId: call.id, message }),
          });
          results[i] = result;
          events.push({ type: "tool_end", call, result, durationMs: performance.now() - started });
        } catch (error) {
          // Only an abort of the turn escapes the pipeline.
          const result: ToolResult = {
            content: isAbort(error, signal)
              ? "Cancelled by the user while running."
              : `Tool failed: ${(error as Error)?.message ?? error}`,
            isError: true,
          };
          results[i] = result;
          events.push({ type: "tool_end", call, result, durationMs: performance.now() - started });
        }
      });
      const all = Promise.all(running).finally(() => events.close());
      yield* events;
      await all;
      batch.forEach((call, i) => {
        const result = results[i]!;
        o.session.append({
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: result.content,
          ...(result.raw !== undefined ? { rawContent: result.raw } : {}),
          ...(result.isError ? { isError: true } : {}),
        });
      });
    }
  }
}
