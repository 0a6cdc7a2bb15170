/**
 * The Coordinator (spec §3.5): a {@linkcode Runner} over an executor and, when
 * `[agent] planner_model` is set, a planner, each an agent of the same host with its own
 * append-only session and cached prefix. Each turn is routed deterministically
 * ({@linkcode routeTurn}); the planner delivers through `submit_plan` only, fails closed when it
 * does not converge (its incomplete turn rolled back), and hands the executor the plan's text
 * and nothing of its research.
 *
 * @module
 */
import { sumTotals } from "./totals.ts";
import { markdownPlan, type Plan, planOf, renderPlan, SUBMIT_PLAN } from "./plan.ts";
import { EXIT_PLAN_MODE } from "../plan/state.ts";
import {
  BUDGET_NOTICE,
  NO_PLAN_NOTICE,
  PLANNER_PROMPT,
  plannerTurnBlock,
} from "./planner_prompt.ts";
import { type PlannerRoute, type RouteDecision, routeTurn } from "./route.ts";
import { type ApprovalChoice, StreamApprovals } from "../agent/approval.ts";
import { emptyTotals } from "../agent/cost.ts";
import type { AgentEvent, Runner, RunStatus, UsageTotals, UserInput } from "../agent/events.ts";
import type { Host, HostedAgent } from "../host/host.ts";
import { readTranscript } from "../store/transcript.ts";

/** Requests the planner may make for one planner turn before its final round. */
export const PLANNER_RESEARCH_TURNS = 24;
/** Requests of each corrective round (the final summary, a protocol error). */
const CORRECTIVE_TURNS = 2;

/** What a {@linkcode Coordinator} drives. */
export interface CoordinatorOptions {
  /** The host both agents are built on. */
  host: Host;
  /** The executor: the session the user sees and continues. */
  executor: HostedAgent;
  /** `[agent] planner_model`; without it every turn goes to the executor. */
  plannerModel?: string;
  /** Research requests per planner turn; default {@linkcode PLANNER_RESEARCH_TURNS}. */
  plannerTurns?: number;
}

type Done = Extract<AgentEvent, { type: "done" }>;

/** How a planner turn ended. */
type PlannerOutcome =
  | { ok: true; plan: Plan; usage: UsageTotals }
  | { ok: false; status: RunStatus; error?: { code: string; message: string }; usage: UsageTotals };

/**
 * Routes each turn to the executor or through the planner.
 *
 * @example Plan first, then execute
 * ```ts
 * import { Coordinator, type Host } from "@reasonix/reasonix";
 *
 * async function planThenFix(host: Host): Promise<void> {
 *   await using executor = await host.createAgent({});
 *   const coordinator = await Coordinator.create({
 *     host,
 *     executor,
 *     plannerModel: host.config.agent.planner_model,
 *   });
 *   const signal = AbortSignal.timeout(120_000);
 *   for await (const event of coordinator.run({ text: "fix the login bug, plan first" }, { signal })) {
 *     if (event.type === "plan") console.log(event.plan.text);
 *   }
 *   await coordinator.close();
 * }
 * ```
 */
export class Coordinator implements Runner {
  /** The executor agent. */
  readonly executor: HostedAgent;
  readonly #opts: CoordinatorOptions;
  #planner: HostedAgent | undefined;
  /** The planner session, kept across turns and reopened after a rollback. */
  #plannerSession: string | undefined;

  private constructor(opts: CoordinatorOptions) {
    this.#opts = opts;
    this.executor = opts.executor;
  }

  /**
   * A coordinator over `executor`. A configured planner model is bound now: one that cannot
   * be resolved or has no key throws the `ConfigError` (exit 2), never a silent fallback.
   */
  static async create(opts: CoordinatorOptions): Promise<Coordinator> {
    if (opts.plannerModel) await opts.host.model(opts.plannerModel);
    return new Coordinator(opts);
  }

  /** Whether a planner model is configured. */
  get hasPlanner(): boolean {
    return Boolean(this.#opts.plannerModel);
  }

  /** The planner agent, once a planner route ran. */
  get planner(): HostedAgent | undefined {
    return this.#planner;
  }

  async *run(input: UserInput, opts: { signal: AbortSignal }): AsyncIterable<AgentEvent> {
    const executor = this.executor;
    if (input.route?.approvePlan) {
      yield* this.#approvePending(input, opts.signal);
      return;
    }
    const decision = routeTurn(input.text, input.route);
    yield { type: "route", route: decision.route, reason: decision.reason };
    // A goal's first round plans first only with a planner; otherwise it is an ordinary turn.
    if (
      decision.route === "executor" ||
      (decision.route === "goal_start" && !this.#opts.plannerModel)
    ) {
      executor.record({ t: "route", route: decision.route, reason: decision.reason });
      yield* executor.run(input, opts);
      return;
    }
    if (!this.#opts.plannerModel) {
      executor.record({ t: "route", route: decision.route, reason: decision.reason });
      yield* this.#inPlanMode(decision, input, opts.signal);
      return;
    }

    const outcome: PlannerOutcome = yield* this.#plan(decision, opts.signal);
    const sessions = { planner: outcome.usage };
    if (!outcome.ok) {
      executor.record({ t: "route", route: decision.route, reason: decision.reason });
      yield done(outcome.status, {
        usage: outcome.usage,
        sessions,
        error: outcome.error,
        text: "",
      });
      return;
    }
    const plan = outcome.plan;
    const shown = { id: plan.id, title: plan.title, text: renderPlan(plan) };
    executor.record({ t: "route", route: decision.route, reason: decision.reason, plan: plan.id });
    yield { type: "plan", status: "submitted", plan: shown };
    const stored = { plan, task: decision.task, images: input.images };

    if (decision.route === "plan_only") {
      executor.record({ t: "plan", id: plan.id, status: "saved", plan: stored });
      yield { type: "plan", status: "saved", plan: shown };
      yield done("completed", { usage: outcome.usage, sessions, text: shown.text });
      return;
    }
    if (decision.route === "plan_approve") {
      const choice = yield* this.#askApproval(plan, shown.text, opts.signal);
      if (choice === undefined) {
        executor.record({ t: "plan", id: plan.id, status: "pending", plan: stored });
        yield { type: "plan", status: "pending", plan: shown };
        yield done("awaiting_approval", {
          usage: outcome.usage,
          sessions,
          text: shown.text,
          detail:
            `plan ${plan.id} waits for approval: run \`reasonix run --continue --approve-plan\` to carry it out`,
        });
        return;
      }
      if (choice === "deny" || choice === "cancelled") {
        executor.record({ t: "plan", id: plan.id, status: "rejected", plan: stored });
        yield { type: "plan", status: "rejected", plan: shown };
        yield done(choice === "cancelled" ? "cancelled" : "completed", {
          usage: outcome.usage,
          sessions,
          text: "The plan was not approved; nothing was changed.",
        });
        return;
      }
    }
    executor.record({ t: "plan", id: plan.id, status: "approved", plan: stored });
    yield { type: "plan", status: "approved", plan: shown };
    yield* this.#execute(
      {
        ...input,
        text: decision.task,
        blocks: [...input.blocks ?? [], handoff(shown, decision)],
      },
      { signal: opts.signal, planner: outcome.usage },
    );
  }

  /**
   * A planner route without a planner model: the executor plans in Plan mode (writers
   * blocked) and presents the plan with `exit_plan_mode`, which only a person approves. Where
   * nobody can be asked the plan is saved: waiting for `--approve-plan`, or as the result of a
   * plan-only turn.
   */
  async *#inPlanMode(
    decision: RouteDecision,
    input: UserInput,
    signal: AbortSignal,
  ): AsyncIterable<AgentEvent> {
    const executor = this.executor;
    this.#opts.host.planMode.enter();
    let presented: string | undefined;
    let approved = false;
    for await (const event of executor.run({ ...input, text: decision.task }, { signal })) {
      if (event.type === "tool_end" && event.call.name === "use_capability") {
        const plan = presentedPlan(event.call.arguments);
        if (plan !== undefined) [presented, approved] = [plan, !event.result.isError];
      }
      if (event.type !== "done" || presented === undefined) {
        yield event;
        continue;
      }
      const shown = await markdownPlan(presented);
      const stored = { markdown: presented, task: decision.task };
      if (approved) {
        executor.record({ t: "plan", id: shown.id, status: "approved", plan: stored });
        yield { type: "plan", status: "approved", plan: shown };
        yield event;
      } else if (executor.spec.approvals === "stream") {
        // A person was asked and kept planning: plan mode stays on, as they chose.
        yield event;
      } else {
        const only = decision.route === "plan_only";
        executor.record({
          t: "plan",
          id: shown.id,
          status: only ? "saved" : "pending",
          plan: stored,
        });
        yield { type: "plan", status: only ? "saved" : "pending", plan: shown };
        yield only ? event : {
          ...event,
          status: event.status === "completed" ? "awaiting_approval" : event.status,
          detail:
            `plan ${shown.id} waits for approval: run \`reasonix run --continue --approve-plan\` to carry it out`,
        };
      }
    }
  }

  /** Closes the planner (the executor belongs to whoever made it). */
  async close(): Promise<void> {
    await this.#planner?.close();
    this.#planner = undefined;
  }

  /** Runs the executor and reports usage per session in its `done`. */
  async *#execute(
    input: UserInput,
    opts: { signal: AbortSignal; planner: UsageTotals },
  ): AsyncIterable<AgentEvent> {
    for await (const event of this.executor.run(input, { signal: opts.signal })) {
      if (event.type !== "done") {
        yield event;
        continue;
      }
      yield {
        ...event,
        usage: sumTotals(opts.planner, event.usage),
        sessions: { planner: opts.planner, executor: event.usage },
      };
    }
  }

  /** Asks a person to approve `plan`; undefined when nobody can be asked (headless). */
  async *#askApproval(
    plan: Plan,
    text: string,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent, ApprovalChoice | "cancelled" | undefined> {
    if (this.executor.spec.approvals !== "stream") return undefined;
    const approvals = new StreamApprovals();
    const request = {
      id: `approve-${plan.id}`,
      kind: "plan" as const,
      tool: SUBMIT_PLAN,
      summary: `Carry out the plan: ${plan.title}`,
      detail: text,
    };
    const answer = approvals.request(request, { signal }).catch(() => "cancelled" as const);
    yield {
      type: "approval_request",
      request,
      respond: (choice) => approvals.answer(request.id, choice),
    };
    const choice = await answer;
    if (choice !== "cancelled") yield { type: "approval_answer", id: request.id, choice };
    return choice;
  }

  /** `run --continue --approve-plan`: carries out the plan the session saved or left pending. */
  async *#approvePending(input: UserInput, signal: AbortSignal): AsyncIterable<AgentEvent> {
    const executor = this.executor;
    const loaded = executor.sessionPath
      ? await readTranscript(executor.sessionPath).catch(() => undefined)
      : undefined;
    const record = loaded?.plan;
    const stored = record?.plan as
      | { plan?: unknown; markdown?: unknown; task?: string }
      | undefined;
    const structured = planOf(stored ? { plan: stored.plan } : undefined);
    const shown = structured
      ? { id: structured.id, title: structured.title, text: renderPlan(structured) }
      : typeof stored?.markdown === "string"
      ? await markdownPlan(stored.markdown)
      : undefined;
    if (!record || !shown || (record.status !== "pending" && record.status !== "saved")) {
      yield done("error", {
        usage: emptyTotals(),
        text: "",
        error: {
          code: "no_pending_plan",
          message: record?.status === "approved"
            ? `plan ${record.id} of this session was already carried out`
            : "this session has no plan waiting for approval; plan one with --plan approve",
        },
      });
      return;
    }
    const decision: RouteDecision = {
      route: "plan_approve",
      reason: "flag",
      task: [stored?.task, input.text.trim()].filter(Boolean).join("\n\n"),
    };
    yield { type: "route", route: decision.route, reason: "flag" };
    executor.record({ t: "route", route: decision.route, reason: "flag", plan: shown.id });
    executor.record({ t: "plan", id: shown.id, status: "approved", plan: stored });
    yield { type: "plan", status: "approved", plan: shown };
    yield* this.#execute(
      { ...input, text: decision.task, blocks: [handoff(shown, decision)] },
      { signal, planner: emptyTotals() },
    );
  }

  /** The planner agent, built on first use and reopened on its session after a rollback. */
  async #plannerAgent(): Promise<HostedAgent> {
    if (this.#planner) return this.#planner;
    const executor = this.executor;
    this.#planner = await this.#opts.host.createAgent({
      model: this.#opts.plannerModel,
      role: "planner",
      systemPrompt: PLANNER_PROMPT,
      approvals: executor.spec.approvals,
      context: { maxTurns: this.#opts.plannerTurns ?? PLANNER_RESEARCH_TURNS },
      transcript: executor.sessionPath === undefined
        ? "ephemeral"
        : this.#plannerSession
        ? { resume: this.#plannerSession }
        : undefined,
      parent: { sessionId: executor.session.id, agentId: "planner" },
    });
    this.#plannerSession = this.#planner.session.id;
    return this.#planner;
  }

  /**
   * One planner turn: research, then delivery through `submit_plan`. A reply without a plan
   * is answered once inside the planner session; a spent budget gets one final round. A turn
   * that still has no plan (or failed, or was cancelled) is rolled back and fails closed.
   */
  async *#plan(
    decision: RouteDecision,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent, PlannerOutcome> {
    let usage = emptyTotals();
    let planner: HostedAgent;
    try {
      planner = await this.#plannerAgent();
    } catch (error) {
      return {
        ok: false,
        status: "error",
        error: {
          code: "planner_unavailable",
          message: `the planner could not start: ${(error as Error)?.message ?? error}`,
        },
        usage,
      };
    }
    const start = planner.session.messages.length;
    const route = decision.route as PlannerRoute;
    let input: UserInput = { text: decision.task, blocks: [plannerTurnBlock(route)] };
    let maxTurns: number | undefined;
    let corrected = false;
    let finalRound = false;
    let last: Done | undefined;
    while (true) {
      let plan: Plan | undefined;
      for await (const event of planner.run(input, { signal, maxTurns })) {
        if (event.type === "done") {
          last = event;
          usage = sumTotals(usage, event.usage);
          continue;
        }
        if (event.type === "tool_end" && event.call.name === SUBMIT_PLAN) {
          plan = planOf(event.result.meta) ?? plan;
        }
        yield { ...event, agent: "planner" };
      }
      if (plan) return { ok: true, plan, usage };
      const status = last?.status;
      if (status === "max_turns" && !finalRound) {
        finalRound = true;
        input = { text: BUDGET_NOTICE };
        maxTurns = CORRECTIVE_TURNS;
        continue;
      }
      if (status === "completed" && !corrected && !finalRound) {
        corrected = true;
        input = { text: NO_PLAN_NOTICE };
        maxTurns = CORRECTIVE_TURNS;
        continue;
      }
      break;
    }
    // Nothing half-done stays in the planner session to be continued by accident.
    await planner.rollback(start);
    this.#planner = undefined;
    const status: RunStatus = last?.status === "cancelled" || last?.status === "timeout"
      ? last.status
      : "error";
    return {
      ok: false,
      status,
      error: status === "error"
        ? {
          code: "planner_failed",
          message: last?.error
            ? `the planner failed: ${last.error.message}; nothing was executed`
            : "the planner did not deliver a plan with submit_plan; nothing was executed. Try again, narrow the task, or ask without plan routing.",
        }
        : undefined,
      usage,
    };
  }
}

/** The plan text `exit_plan_mode` was called with, if this call was one. */
function presentedPlan(args: string): string | undefined {
  try {
    const value = JSON.parse(args) as { capability?: unknown; arguments?: { plan?: unknown } };
    return value.capability === EXIT_PLAN_MODE && typeof value.arguments?.plan === "string"
      ? value.arguments.plan
      : undefined;
  } catch {
    return undefined;
  }
}

/** The executor's view of a plan: its text and route, none of the planner's research. */
function handoff(plan: { id: string; text: string }, decision: RouteDecision): string {
  return [
    `<plan id="${plan.id}" route="${decision.route}">`,
    plan.text,
    "</plan>",
    "Carry out this plan. Check the candidate touch points before relying on them.",
  ].join("\n");
}

function done(
  status: RunStatus,
  parts: {
    usage: UsageTotals;
    text: string;
    sessions?: Done["sessions"];
    error?: Done["error"];
    detail?: string;
  },
): Done {
  return {
    type: "done",
    status,
    text: parts.text,
    turns: 0,
    toolCalls: 0,
    usage: parts.usage,
    ...(parts.sessions ? { sessions: parts.sessions } : {}),
    ...(parts.error ? { error: parts.error } : {}),
    ...(parts.detail ? { detail: parts.detail } : {}),
  };
}
