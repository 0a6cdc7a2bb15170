/**
 * The goal driver: while a goal is `active` and armed, it admits one ordinary top-level turn
 * at a time through the same entry as a user turn (`runner.run(input, { signal })` of whatever
 * `Runner` the front end drives), with a short fixed text. The model's final answer does not
 * end the goal; `update_goal` (complete, blocked, pause), a bound, the user or an error does.
 *
 * @module
 */
import type { AgentEvent, Runner, UsageTotals, UserInput } from "../agent/events.ts";
import type { Goals, GoalState } from "./goals.ts";
import { RESUME_HINT } from "./goals.ts";

/** The user text of every automatic round after the first. Fixed, so it never varies. */
export const CONTINUE_TEXT = "Continue working toward the goal.";

type Done = Extract<AgentEvent, { type: "done" }>;

/** Options of {@linkcode GoalDriver}. */
export interface GoalDriverOptions {
  /** The entry user turns go through: a hosted agent, or a coordinator. */
  runner: Runner;
  /** The session's goal. */
  goals: Goals;
}

/**
 * Admits goal rounds through a runner, one at a time, for a front end with its own idle loop.
 *
 * @example Run rounds until the goal stops
 * ```ts
 * import { GoalDriver, type HostedAgent } from "@reasonix/reasonix";
 *
 * async function untilStopped(agent: HostedAgent, signal: AbortSignal): Promise<void> {
 *   const goals = agent.goals!;
 *   const driver = new GoalDriver({ runner: agent, goals });
 *   while (goals.due) {
 *     for await (const event of driver.round({ signal })) {
 *       if (event.type === "goal") console.log(event.change, event.goal.rounds);
 *     }
 *   }
 * }
 * ```
 */
export class GoalDriver {
  readonly #runner: Runner;
  readonly #goals: Goals;

  /** A driver for `goals` through `runner`. */
  constructor(opts: GoalDriverOptions) {
    this.#runner = opts.runner;
    this.#goals = opts.goals;
  }

  /** The goal the driver runs. */
  get goals(): Goals {
    return this.#goals;
  }

  /**
   * One round, when one is due: a bound already reached pauses the goal instead (and yields
   * that `goal` event); otherwise the round is admitted and `input` (default
   * {@linkcode CONTINUE_TEXT}) runs through the runner. Every event is yielded, the round's
   * `done` included. Cancelling pauses the goal; so does an error, or a bound the round reached.
   */
  async *round(opts: { signal: AbortSignal; input?: UserInput }): AsyncIterable<AgentEvent> {
    const goals = this.#goals;
    yield* goals.drain();
    if (!goals.due) return;
    const bound = goals.boundReached();
    if (bound) {
      goals.pause("bound", `Goal paused: ${bound}; ${RESUME_HINT}.`);
      yield* goals.drain();
      return;
    }
    const round = goals.admitRound();
    yield* goals.drain();
    let input = opts.input ?? { text: CONTINUE_TEXT };
    // The first round of a goal is its explicit start, trusted metadata a coordinator routes on.
    if (round === 1) input = { ...input, route: { ...input.route, goalStart: true } };
    let done: Done | undefined;
    try {
      for await (const event of this.#runner.run(input, { signal: opts.signal })) {
        if (event.type === "usage") goals.observe(event.usage);
        if (event.type === "done") done = event;
        yield event;
      }
    } finally {
      goals.flush();
    }
    const stop = stopReason(done);
    if (stop) goals.pause(stop.by, `Goal paused: ${stop.why}; ${RESUME_HINT}.`);
    else {
      // A bound the round reached pauses now, so the state shown is the true one.
      const reached = goals.boundReached();
      if (reached && goals.due) goals.pause("bound", `Goal paused: ${reached}; ${RESUME_HINT}.`);
    }
    yield* goals.drain();
  }
}

/** Why a round's end pauses the goal, if it does. */
function stopReason(done: Done | undefined): { by: "user" | "error"; why: string } | undefined {
  if (!done) return { by: "error", why: "the round ended without a result" };
  switch (done.status) {
    case "cancelled":
      return { by: "user", why: "cancelled by the user" };
    case "awaiting_approval":
      return { by: "user", why: "a plan waits for your approval" };
    case "error":
      return { by: "error", why: `the round failed (${done.error?.message ?? "error"})` };
    case "timeout":
    case "budget_exceeded":
      return { by: "error", why: done.detail ?? `the round stopped (${done.status})` };
    default:
      return undefined;
  }
}

function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  const sum = (x?: number, y?: number) =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  const out: UsageTotals = {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    cacheHitTokens: a.cacheHitTokens + b.cacheHitTokens,
    cacheMissTokens: a.cacheMissTokens + b.cacheMissTokens,
  };
  const cost = sum(a.cost, b.cost);
  if (cost !== undefined) out.cost = cost;
  const currency = a.currency ?? b.currency;
  if (currency) out.currency = currency;
  const requestBytes = sum(a.requestBytes, b.requestBytes);
  if (requestBytes !== undefined) out.requestBytes = requestBytes;
  const cachedBytes = sum(a.cachedBytes, b.cachedBytes);
  if (cachedBytes !== undefined) out.cachedBytes = cachedBytes;
  return out;
}

/**
 * A {@linkcode Runner} that drives the goal after each user input: the input runs (as the
 * goal's first round when a goal is already due), then rounds while the goal is active and
 * armed. When rounds ran, the rounds' `done` events are held back and one `done` sums them:
 * `completed` only when the goal is complete; a bound (rounds or tokens) is
 * `budget_exceeded`, a blocked or paused goal `error` with code `goal_blocked` or
 * `goal_paused`, and `detail` says how to resume. This is the shape headless front ends need
 * (`reasonix run --goal`): one run, one result.
 *
 * @example Work toward a goal headless
 * ```ts
 * import { GoalRunner, type HostedAgent } from "@reasonix/reasonix";
 *
 * async function reach(agent: HostedAgent, objective: string): Promise<string | undefined> {
 *   agent.goals!.start(objective);
 *   const runner = new GoalRunner({ runner: agent, goals: agent.goals! });
 *   for await (const event of runner.run({ text: objective }, { signal: AbortSignal.timeout(600_000) })) {
 *     if (event.type === "done") return agent.goals!.state?.status;
 *   }
 * }
 * ```
 */
export class GoalRunner implements Runner {
  readonly #driver: GoalDriver;
  readonly #runner: Runner;

  /** Drives `goals` after each input, through `runner`. */
  constructor(opts: GoalDriverOptions) {
    this.#runner = opts.runner;
    this.#driver = new GoalDriver(opts);
  }

  /** The goal it drives. */
  get goals(): Goals {
    return this.#driver.goals;
  }

  /** The input, then rounds while the goal is due; one `done` at the end. */
  async *run(input: UserInput, opts: { signal: AbortSignal }): AsyncIterable<AgentEvent> {
    const goals = this.#driver.goals;
    const dones: Done[] = [];
    const hold = async function* (events: AsyncIterable<AgentEvent>) {
      for await (const event of events) {
        if (event.type === "done") dones.push(event);
        else yield event;
      }
    };
    if (goals.due) {
      yield* hold(this.#driver.round({ signal: opts.signal, input }));
    } else {
      // An ordinary turn; it becomes the start of a goal only if it created one.
      let done: Done | undefined;
      for await (const event of this.#runner.run(input, opts)) {
        if (event.type === "done") done = event;
        else yield event;
      }
      yield* goals.drain();
      if (!goals.due) {
        if (done) yield done;
        return;
      }
      if (done) dones.push(done);
    }
    while (goals.due && !opts.signal.aborted) {
      yield* hold(this.#driver.round({ signal: opts.signal }));
    }
    yield merged(dones, goals.state);
  }
}

/** One `done` for the whole goal run. */
function merged(dones: readonly Done[], goal: GoalState | undefined): Done {
  const last = dones.at(-1);
  const usage = dones.reduce<UsageTotals>((t, d) => addTotals(t, d.usage), {
    promptTokens: 0,
    completionTokens: 0,
    cacheHitTokens: 0,
    cacheMissTokens: 0,
  });
  const base = {
    type: "done" as const,
    text: last?.text ?? "",
    turns: dones.reduce((n, d) => n + d.turns, 0),
    toolCalls: dones.reduce((n, d) => n + d.toolCalls, 0),
    usage,
  };
  const detail = goal && goal.status !== "complete" ? goal.reason ?? last?.detail : last?.detail;
  const tail = { ...(detail ? { detail } : {}) };
  // A stop by signal, time or failure is what the run ended with.
  if (
    last && (last.status === "cancelled" || last.status === "timeout" || last.status === "error")
  ) {
    return { ...base, status: last.status, ...(last.error ? { error: last.error } : {}), ...tail };
  }
  if (goal?.status === "complete") return { ...base, status: "completed", ...tail };
  // Either bound is a budget (docs/SPEC.md §4): resumable, and named in `detail`.
  if (goal?.status === "paused" && goal.pausedBy === "bound") {
    return { ...base, status: "budget_exceeded", ...tail };
  }
  const code = goal?.status === "blocked" ? "goal_blocked" : "goal_paused";
  const message = goal?.reason ?? `the goal is ${goal?.status ?? "cleared"}`;
  return { ...base, status: "error", error: { code, message }, ...tail };
}
