/**
 * The single-model agent loop (spec §3.4): build the request, stream the reply, run the
 * complete tool calls, append their results, repeat until the model stops calling tools.
 *
 * @module
 */
import type {
  ImagePart,
  Message,
  Provider,
  ProviderRequest,
  ToolCall,
  Usage,
} from "../../providers/types.ts";
import { ContextOverflowError } from "../../providers/errors.ts";
import type { ContextManager, Prepared } from "../context/manager.ts";
import { CacheMeter, type CacheTotals } from "../context/cache_meter.ts";
import { statedLimit, statedTokens } from "../context/summary.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import type { SharedToolContext, ToolResult } from "../../tools/types.ts";
import { ReasonixError } from "../../errors.ts";
import type { Price } from "../config/types.ts";
import { addUsage, cacheHitRatio, countRequest, emptyTotals } from "./cost.ts";
import type { AgentEvent, Runner, RunStatus, UsageTotals, UserInput } from "./events.ts";
import { AsyncQueue } from "./queue.ts";
import type { Session } from "./session.ts";
import { executeToolCall, type ToolGate } from "./tool_exec.ts";
import { sanitizeHistory } from "./sanitize.ts";
import { StormBreaker } from "./storm.ts";

/** The usage a tool reports for work it delegated (the `task` tool's children). */
function childUsage(meta: Record<string, unknown> | undefined): UsageTotals | undefined {
  const u = meta?.usage as UsageTotals | undefined;
  return u && typeof u.promptTokens === "number" && typeof u.completionTokens === "number"
    ? u
    : undefined;
}

/** Adds a child's usage to the run's totals; its cost only in the run's currency. */
function countChild(
  totals: UsageTotals,
  child: UsageTotals,
  turn: number,
): Extract<AgentEvent, { type: "usage" }> {
  const sameMoney = child.cost !== undefined &&
    (totals.currency === undefined || totals.currency === child.currency);
  const usage = {
    promptTokens: child.promptTokens,
    completionTokens: child.completionTokens,
    cacheHitTokens: child.cacheHitTokens,
    cacheMissTokens: child.cacheMissTokens,
  };
  addUsage(totals, usage, sameMoney ? child.cost : undefined);
  if (sameMoney) totals.currency ??= child.currency;
  return {
    type: "usage",
    turn,
    usage,
    ...(sameMoney ? { cost: child.cost, currency: child.currency } : {}),
    cacheHitRatio: cacheHitRatio(usage),
    totals: { ...totals },
    purpose: "subagent",
  };
}

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
  toolContext: SharedToolContext;
  /** Upper bound on model requests per run. */
  maxTurns: number;
  temperature?: number;
  reasoningEffort?: string;
  /**
   * Output cap for a request, given the estimated prompt size in tokens. `compact` asks for
   * context maintenance instead of overriding the user's choice to omit the cap.
   */
  outputBudget?(
    promptTokens: number,
  ): number | undefined | { maxOutputTokens?: number; compact?: boolean };
  /** Hard limits for unattended runs; reaching one ends the run with `budget_exceeded`. */
  budget?: { maxCost?: number; maxTokens?: number };
  price?: Price;
  gate?: ToolGate;
  /**
   * Context maintenance (spec §3.6). Without it the full history is sent every time and a
   * context overflow ends the run.
   */
  context?: ContextManager;
  /** Upper bound for one tool call. Default 10 minutes. */
  toolTimeoutMs?: number;
  /**
   * Builds the user message of each run (instructions, environment facts, recalled memory,
   * `@` references, images): volatile facts ride the current user turn, never the system
   * prompt. Without it the input text is appended as it is.
   */
  turns?: TurnSource;
  /**
   * Measures every request against the previous one of the session (cache breaks). Pass the
   * session's meter when a new agent continues a session (a model switch); default a new one.
   */
  cacheMeter?: CacheMeter;
  /**
   * Tools whose successful call ends the run (the planner's `submit_plan`): the result is
   * appended and no further request is made for this input.
   */
  endsRunOn?: readonly string[];
}

/** Turns user input into the user message to append, and the events that caused. */
export interface TurnSource {
  build(input: UserInput, session: Session, opts: { signal: AbortSignal }): Promise<BuiltTurn>;
}

/** A prepared user turn. */
export interface BuiltTurn {
  /** The user message text the model sees. */
  content: string;
  /** Images the model is shown (only when it can see them). */
  images?: ImagePart[];
  /** Requests made to prepare the turn (image descriptions); they count toward the budgets. */
  sideRequests?: SideRequest[];
  /** What preparing the turn reported (notices about references and images), in order. */
  events?: AgentEvent[];
}

/** A model request made while preparing a user turn, for usage and cost accounting. */
export interface SideRequest {
  purpose: "vision";
  usage: Usage;
  /** The price of the model that served it, when configured. */
  price?: Price;
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

/** Whether the run's signal fired because of its time limit rather than Ctrl-C. */
function isTimeout(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as Error)?.name === "TimeoutError";
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof DOMException && error.name === "AbortError");
}

function errorInfo(error: unknown): { code: string; message: string } {
  return {
    code: error instanceof ReasonixError ? error.code : "internal",
    message: (error as Error)?.message ?? String(error),
  };
}

/** How a run ends on `error`: cancelled when the signal caused it, else failed with it. */
function endingFor(
  error: unknown,
  signal: AbortSignal,
): { status: RunStatus; failure?: { code: string; message: string } } {
  return isAbort(error, signal)
    ? { status: "cancelled" }
    : { status: "error", failure: errorInfo(error) };
}

/** The single-model runner. */
export class Agent implements Runner {
  readonly #opts: AgentOptions;
  /** View size at the last compaction made for the output budget: don't pay again until it grows. */
  #lastBudgetCompaction = -Infinity;
  readonly #meter: CacheMeter;

  constructor(opts: AgentOptions) {
    this.#opts = { ...opts };
    this.#meter = opts.cacheMeter ?? CacheMeter.for(opts.provider);
  }

  /** The session's cache-break meter (summary requests report to it too). */
  get cacheMeter(): CacheMeter {
    return this.#meter;
  }

  /**
   * Changes settings that take effect from the next request, without a new session.
   * Reasoning effort is a request field, not part of the cached prefix.
   */
  configure(settings: { reasoningEffort?: string | null }): void {
    if (settings.reasoningEffort !== undefined) {
      this.#opts.reasoningEffort = settings.reasoningEffort ?? undefined;
    }
  }

  /** The reasoning effort sent with requests, if any. */
  get reasoningEffort(): string | undefined {
    return this.#opts.reasoningEffort;
  }

  /** Runs one user input to completion, cancellation or failure. */
  async *run(
    input: UserInput,
    opts: { signal: AbortSignal; maxTurns?: number },
  ): AsyncIterable<AgentEvent> {
    const o = this.#opts;
    const maxTurns = opts.maxTurns ?? o.maxTurns;
    const { session } = o;
    const signal = opts.signal;
    const totals = emptyTotals(o.price);
    let turns = 0;
    let toolCalls = 0;
    let finalText = "";
    let status: RunStatus = "completed";
    let failure: { code: string; message: string } | undefined;
    let detail: string | undefined;
    const storms = new StormBreaker();
    const metered = this.#meter.totals;

    const turn: BuiltTurn = o.turns
      ? await o.turns.build(input, session, { signal })
      : { content: input.text, ...(input.images?.length ? { images: input.images } : {}) };
    yield* turn.events ?? [];
    try {
      session.append({
        role: "user",
        content: turn.content,
        ...(turn.images?.length ? { images: turn.images } : {}),
      });
      const turnStart = session.messages.length - 1;
      for (const side of turn.sideRequests ?? []) {
        // Money in another currency than the run's cannot join its total.
        const price = o.price && side.price?.currency === o.price.currency ? side.price : undefined;
        yield countRequest(totals, side.usage, { turn: 0, price, purpose: side.purpose });
      }

      while (true) {
        if (signal.aborted) {
          status = "cancelled";
          break;
        }
        if (turns >= maxTurns) {
          status = "max_turns";
          break;
        }
        const exceeded = this.#budgetExceeded(totals);
        if (exceeded) {
          status = "budget_exceeded";
          detail = exceeded;
          break;
        }
        turns++;
        yield { type: "turn_start", turn: turns };

        let prepared: Prepared;
        try {
          prepared = o.context
            ? await o.context.prepare(session.messages, { signal })
            : { messages: session.messages, rawTokens: 0, reports: [] };
        } catch (error) {
          ({ status, failure } = endingFor(error, signal));
          break;
        }
        for (const report of prepared.reports) yield { type: "compaction", report };
        let plan = this.#outputPlan(prepared);
        const size = o.context?.estimatePrepared(prepared) ?? 0;
        if (
          plan.compact && o.context && size >= this.#lastBudgetCompaction + o.context.growthStep
        ) {
          this.#lastBudgetCompaction = size;
          // The known automatic output budget no longer fits and the user chose to omit the cap:
          // make room instead of overriding that choice.
          try {
            prepared = await o.context.rescueOverflow(session.messages, { signal, turnStart });
          } catch (error) {
            status = isAbort(error, signal) ? "cancelled" : "error";
            if (status === "error") failure = errorInfo(error);
            break;
          }
          for (const report of prepared.reports) yield { type: "compaction", report };
          plan = this.#outputPlan(prepared);
        }

        let text = "";
        let reasoning = "";
        let signature: string | undefined;
        const calls: ToolCall[] = [];
        let streamError: unknown;
        let rescued = false;
        while (true) {
          const request = this.#request(prepared, plan.maxOutputTokens);
          yield* this.#measure(request, { turn: turns, prepared, totals, since: metered });
          yield { type: "request_start", turn: turns, model: o.model };
          let output = false;
          streamError = undefined;
          try {
            for await (const chunk of o.provider.stream(request, { signal })) {
              switch (chunk.type) {
                case "text":
                  output = true;
                  text += chunk.text;
                  yield { type: "text", text: chunk.text };
                  break;
                case "reasoning":
                  output = true;
                  reasoning += chunk.text;
                  yield { type: "reasoning", text: chunk.text };
                  break;
                case "reasoning_signature":
                  signature = chunk.signature;
                  break;
                case "tool_call":
                  output = true;
                  calls.push(chunk.call);
                  break;
                case "usage": {
                  o.context?.observe(prepared.rawTokens, chunk.usage.promptTokens);
                  yield countRequest(totals, chunk.usage, { turn: turns, price: o.price });
                  break;
                }
                case "done":
                  if (chunk.finishReason === "length" && calls.length === 0) {
                    yield {
                      type: "notice",
                      level: "warning",
                      message:
                        "The model stopped at its output limit; the answer may be incomplete.",
                    };
                  }
                  break;
              }
            }
          } catch (error) {
            streamError = error;
          }
          // Overflow: one rescue (summary or truncate) and one retry of the same request.
          if (
            streamError instanceof ContextOverflowError && !output && !rescued && o.context &&
            !signal.aborted
          ) {
            rescued = true;
            try {
              prepared = await o.context.rescueOverflow(session.messages, {
                signal,
                turnStart,
                statedPromptTokens: statedTokens(streamError.message),
                statedLimit: statedLimit(streamError.message),
              });
              plan = this.#outputPlan(prepared);
            } catch (error) {
              streamError = error;
              break;
            }
            for (const report of prepared.reports) yield { type: "compaction", report };
            continue;
          }
          break;
        }

        if (streamError !== undefined) {
          // Keep what the user already saw; drop incomplete tool calls (none were executed).
          if (text || reasoning) {
            session.append({ role: "assistant", content: text, reasoning: reasoning || undefined });
            finalText = text;
          }
          ({ status, failure } = endingFor(streamError, signal));
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
        let delivered = false;
        for await (const event of this.#runTools(calls, signal, storms)) {
          if (
            event.type === "tool_end" && !event.result.isError &&
            o.endsRunOn?.includes(event.call.name)
          ) delivered = true;
          yield event;
          // Subagents' usage counts toward this run's totals and budgets (spec §3.17).
          const child = event.type === "tool_end" ? childUsage(event.result.meta) : undefined;
          if (child) yield countChild(totals, child, turns);
        }
        if (signal.aborted) {
          status = "cancelled";
          break;
        }
        if (delivered) break;
      }
    } catch (error) {
      // The transcript cannot be written (a full disk): end the run rather than go on with
      // work that would not be saved.
      if (!(error instanceof ReasonixError && error.code === "transcript_write")) throw error;
      status = "error";
      failure = errorInfo(error);
    }

    if (status === "cancelled" && isTimeout(signal)) {
      status = "timeout";
      detail = "the run reached its time limit (--timeout)";
    }
    if (status === "cancelled" || status === "timeout") {
      this.#closeOpenCalls(
        status === "timeout"
          ? "Not run: the run reached its time limit."
          : "Cancelled by the user before it ran.",
      );
    }
    yield {
      type: "done",
      status,
      text: finalText,
      turns,
      toolCalls,
      usage: totals,
      ...(failure ? { error: failure } : {}),
      ...(detail ? { detail } : {}),
    };
  }

  #request(prepared: Prepared, maxOutputTokens: number | undefined): ProviderRequest {
    const o = this.#opts;
    const request: ProviderRequest = {
      model: o.model,
      system: o.systemPrompt,
      messages: sanitizeHistory(prepared.messages),
      tools: o.registry.schemas(),
      temperature: o.temperature,
      reasoningEffort: o.reasoningEffort,
    };
    if (maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
    return request;
  }

  /**
   * Measures a request about to be sent and reports its cache break (and those of summary
   * requests made while preparing it); the run's totals carry the measured bytes.
   */
  *#measure(
    request: ProviderRequest,
    at: { turn: number; prepared: Prepared; totals: UsageTotals; since: CacheTotals },
  ): Iterable<AgentEvent> {
    this.#meter.observe(request, { turn: at.turn, reports: at.prepared.reports });
    const now = this.#meter.totals;
    at.totals.requestBytes = now.bytes - at.since.bytes;
    at.totals.cachedBytes = now.cachedBytes - at.since.cachedBytes;
    for (const cacheBreak of this.#meter.take(at.turn)) yield { type: "cache_break", cacheBreak };
  }

  #outputPlan(prepared: Prepared): { maxOutputTokens?: number; compact?: boolean } {
    const o = this.#opts;
    if (!o.outputBudget) return {};
    const promptTokens = o.context ? o.context.estimatePrepared(prepared) : estimatePromptTokens(
      {
        model: o.model,
        system: o.systemPrompt,
        messages: prepared.messages,
        tools: o.registry.schemas(),
      },
    );
    const plan = o.outputBudget(promptTokens);
    return typeof plan === "object" ? plan : { maxOutputTokens: plan };
  }

  /** A reason when a budget of `budget` has been reached, else undefined. */
  #budgetExceeded(totals: UsageTotals): string | undefined {
    const budget = this.#opts.budget;
    if (!budget) return undefined;
    if (budget.maxCost !== undefined && (totals.cost ?? 0) >= budget.maxCost) {
      return `the run spent ${(totals.cost ?? 0).toFixed(4)} ${
        totals.currency ?? ""
      } of its ${budget.maxCost} budget (--max-cost)`
        .replace("  ", " ");
    }
    const tokens = totals.promptTokens + totals.completionTokens;
    if (budget.maxTokens !== undefined && tokens >= budget.maxTokens) {
      return `the run used ${tokens} tokens of its ${budget.maxTokens} budget (--max-tokens)`;
    }
    return undefined;
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
  async *#runTools(
    calls: ToolCall[],
    signal: AbortSignal,
    storms: StormBreaker,
  ): AsyncIterable<AgentEvent> {
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
          const result = storms.refusal(call) ?? storms.observe(
            call,
            await executeToolCall(call, {
              registry: o.registry,
              context: o.toolContext,
              signal,
              gate: o.gate,
              timeoutMs: o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
              onProgress: (message, detail) =>
                events.push({
                  type: "tool_progress",
                  callId: call.id,
                  message,
                  ...(detail ? { detail } : {}),
                }),
              onEvent: (event) => events.push(event),
            }),
          );
          results[i] = result;
          events.push({ type: "tool_end", call, result, durationMs: performance.now() - started });
        } catch (error) {
          // Only an abort of the turn escapes the pipeline.
          const aborted = isAbort(error, signal);
          const result: ToolResult = {
            content: aborted
              ? "Cancelled by the user while running."
              : `Tool failed: ${(error as Error)?.message ?? error}`,
            isError: true,
            code: aborted ? "cancelled" : "internal",
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
