/**
 * The headless front end of `reasonix run`: one output per format, fed by nothing but the
 * agent's event stream, and the loop that runs user turns one after another in one session.
 *
 * @module
 */
import type { AgentEvent, Runner, RunStatus } from "../../core/agent/events.ts";
import type { GoalRecord } from "../../core/store/records.ts";
import { plainRenderer } from "../render_plain.ts";
import type { OutputFormat } from "./format.ts";
import type { TurnLine } from "./input_stream.ts";
import { JsonSummaryWriter } from "./json_summary.ts";
import type { RunInfo } from "./run_info.ts";
import { refusalBlock, RefusalLedger } from "./refusals.ts";
import { type InputLineError, StreamJsonWriter } from "./stream_json.ts";
import { runSummaryLine } from "./summary_line.ts";

/** What `reasonix run` writes, whatever the format. */
export interface HeadlessOutput {
  /** Before the first turn (the stream-json `system`/`init` line). */
  start(): void;
  /** A user turn is about to run. */
  beginTurn(): void;
  /** One event, from the run's stream (or a side channel that has not moved into it yet). */
  event(event: AgentEvent): void;
  /** A stdin line that is not a user turn. */
  inputError(error: InputLineError): void;
  /** The calls of the run that were refused or could not start. */
  readonly refusals: RefusalLedger;
}

/** Where an output writes and what it reports about the run. */
export interface OutputOptions {
  /** Standard output: the answer, the JSON summary or the JSON lines. */
  out(text: string): void;
  /** Standard error: diagnostics. */
  err(text: string): void;
  /** ANSI styling on diagnostics. */
  color: boolean;
  info: RunInfo;
  /** The clock for durations; default `performance.now`. */
  now?: () => number;
  /** The goal of a Goal-mode run (`--goal`), reported with the result. */
  goal?: () => GoalRecord | undefined;
}

/** One line on stderr for a goal event of a text or `--json` run. */
function goalLine(event: Extract<AgentEvent, { type: "goal" }>): string {
  const g = event.goal;
  const what = event.change === "round"
    ? `round ${g.rounds}`
    : event.change === "bound"
    ? "paused"
    : event.change;
  const tail = event.message && event.change !== "round" ? `: ${event.message}` : "";
  return `goal ${g.id} (revision ${g.revision}): ${what} · ${g.rounds} rounds · ${g.tokens} tokens · ` +
    `${g.requests} requests${tail}\n`;
}

/** The output of `format`. */
export function createOutput(format: OutputFormat, opts: OutputOptions): HeadlessOutput {
  const refusals = new RefusalLedger();
  const inputError = (error: InputLineError) =>
    opts.err(`reasonix run: stdin line ${error.line}: ${error.message}\n`);
  const now = opts.now ?? (() => performance.now());
  let started = now();
  /** At the end of a turn: what was refused, in full, then one line of totals. */
  const closing = (event: AgentEvent, totals: boolean) => {
    if (event.type !== "done") return;
    const block = refusalBlock(refusals.turn);
    if (block) opts.err(block);
    if (totals) opts.err(`${runSummaryLine(event, { durationMs: now() - started })}\n`);
  };
  const begin = () => {
    refusals.beginTurn();
    started = now();
  };
  if (format === "text") {
    const render = plainRenderer({ out: opts.out, err: opts.err, color: opts.color });
    return {
      start() {},
      beginTurn: begin,
      event(event) {
        refusals.event(event);
        render(event);
        if (event.type === "goal") opts.err(goalLine(event));
        closing(event, true);
      },
      inputError,
      refusals,
    };
  }
  if (format === "json") {
    // Diagnostics still go to stderr; stdout holds nothing but the summary.
    const render = plainRenderer({ err: opts.err, color: opts.color });
    const summary = new JsonSummaryWriter({
      write: opts.out,
      info: opts.info,
      refusals,
      goal: opts.goal,
    });
    return {
      start() {},
      beginTurn: () => {
        begin();
        summary.beginTurn();
      },
      event(event) {
        refusals.event(event);
        render(event);
        if (event.type === "goal") opts.err(goalLine(event));
        summary.event(event);
        closing(event, true);
      },
      inputError,
      refusals,
    };
  }
  // stream-json: the lines say everything; stderr gets only notices, why a turn failed and what
  // was refused.
  const render = plainRenderer({ err: opts.err, color: opts.color });
  const lines = new StreamJsonWriter({
    write: opts.out,
    info: opts.info,
    refusals,
    goal: opts.goal,
  });
  return {
    start: () => lines.start(),
    beginTurn: () => {
      begin();
      lines.beginTurn();
    },
    event(event) {
      refusals.event(event);
      if (event.type === "notice" || event.type === "done") render(event);
      lines.event(event);
      closing(event, false);
    },
    inputError(error) {
      lines.inputError(error);
      inputError(error);
    },
    refusals,
  };
}

/** How a sequence of user turns ended. */
export interface TurnsOutcome {
  /** `completed` when every turn completed, else the first status that was not. */
  status: RunStatus;
  /** Turns run. */
  turns: number;
  /** Set when a stdin line was not a user turn; nothing after it was read. */
  inputError?: InputLineError;
}

/** Options of {@linkcode runTurns}. */
export interface RunTurnsOptions {
  runner: Runner;
  /** The user turns, in order; pulled one at a time as each turn finishes. */
  turns: AsyncIterable<TurnLine> | Iterable<TurnLine>;
  output: HeadlessOutput;
  signal: AbortSignal;
}

/** Resolves with the next item, or with `undefined` once `signal` aborts. */
function nextOrAbort<T>(
  iterator: AsyncIterator<T> | Iterator<T>,
  signal: AbortSignal,
): Promise<IteratorResult<T> | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(iterator.next()).then(
      (item) => {
        signal.removeEventListener("abort", onAbort);
        resolve(item);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Runs each user turn to completion in the runner's one session, writing every event to
 * `output`. A turn that fails does not end the sequence (the driving program sees its `result`);
 * a cancelled one, a malformed line or the end of the turns does.
 */
export async function runTurns(opts: RunTurnsOptions): Promise<TurnsOutcome> {
  const { output, signal } = opts;
  const iterator = Symbol.asyncIterator in opts.turns
    ? (opts.turns as AsyncIterable<TurnLine>)[Symbol.asyncIterator]()
    : (opts.turns as Iterable<TurnLine>)[Symbol.iterator]();
  let status: RunStatus = "completed";
  let turns = 0;
  output.start();
  while (true) {
    const item = await nextOrAbort(iterator, signal);
    if (item === undefined) {
      // Stopped while waiting for the next turn.
      const reason = signal.reason as Error | undefined;
      status = reason?.name === "TimeoutError" ? "timeout" : "cancelled";
      break;
    }
    if (item.done) break;
    if (!item.value.ok) {
      output.inputError(item.value.error);
      return { status, turns, inputError: item.value.error };
    }
    output.beginTurn();
    turns++;
    let done: Extract<AgentEvent, { type: "done" }> | undefined;
    for await (const event of opts.runner.run(item.value.input, { signal })) {
      output.event(event);
      if (event.type === "done") done = event;
    }
    if (!done) throw new Error("agent ended without a done event");
    // A stop by signal or time limit wins; otherwise the first turn that did not complete.
    const stopped = done.status === "cancelled" || done.status === "timeout";
    if (status === "completed" || stopped) status = done.status;
    if (stopped) break;
  }
  return { status, turns };
}
