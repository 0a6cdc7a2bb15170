/**
 * A session's goal (Goal mode, spec §3.7): its state, the model's `get_goal`, `create_goal`
 * and `update_goal` capabilities with exact id and revision checks, the user's commands, and
 * the volatile block that rides the current user turn. The state is persisted as the session's
 * `goal` projection; activation ("armed": the driver may admit rounds in this process) never
 * is, so a cold start, a resumed, imported or forked session starts disarmed.
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";
import type { AgentEvent, GoalChange } from "../agent/events.ts";
import type { GoalRecord, GoalStatus } from "../store/records.ts";
import type { Capability } from "../../tools/capability.ts";
import type { ToolResult } from "../../tools/types.ts";

/** A goal's state as the session records it. */
export type GoalState = GoalRecord;
/** Where a goal is: `active`, `paused`, `complete` or `blocked`. */
export type { GoalStatus };

/** A `goal` event of the agent's stream. */
export type GoalEvent = Extract<AgentEvent, { type: "goal" }>;

/** Rounds an automatic goal must have run before the model may call it blocked. */
export const MIN_BLOCKED_ROUNDS = 3;

/** The model's `update_goal` actions. */
export const GOAL_ACTIONS = ["edit", "pause", "resume", "complete", "blocked"] as const;

/** One of {@linkcode GOAL_ACTIONS}. */
export type GoalAction = typeof GOAL_ACTIONS[number];

/** The resumable bounds of `[agent]`: reaching one pauses the goal. Absent: only observed. */
export interface GoalBounds {
  /** `max_goal_rounds`: rounds from the last activation. */
  maxRounds?: number;
  /** `goal_token_budget`: prompt + completion tokens from the last activation. */
  tokenBudget?: number;
}

/** How a paused goal is resumed, for messages: interactive and headless. */
export const RESUME_HINT =
  "resume with /goal resume, or headless with reasonix run --continue --goal-resume";

/** A refused goal operation, in words for the model or the user. */
export class GoalRefusal extends ReasonixError {
  /** `message` says what was refused and what applies instead. */
  constructor(message: string) {
    super("goal_refused", message);
    this.name = "GoalRefusal";
  }
}

/** Options of {@linkcode Goals}. */
export interface GoalsOptions {
  /** The goal a resumed transcript recorded; it starts disarmed. */
  restored?: GoalRecord;
  /** Writes the goal projection (`null`: cleared). Absent: in memory only. */
  persist?: (goal: GoalRecord | null) => void;
  /** The bounds shown in the turn block and enforced by the driver. */
  bounds?: GoalBounds;
  /** Id maker (tests pin it). */
  newId?: () => string;
}

function copy(goal: GoalRecord): GoalRecord {
  return { ...goal, since: { ...goal.since } };
}

function fmt(n: number): string {
  return n.toLocaleString("en-US");
}

/**
 * The goal of one session, and who may change it how. A hosted agent has one
 * (`agent.goals`); the model changes it through `use_capability`, the user through these
 * methods.
 *
 * @example Start a goal and read it back
 * ```ts
 * import { Goals } from "@reasonix/reasonix";
 *
 * const goals = new Goals({ bounds: { maxRounds: 10 } });
 * const goal = goals.start("make the integration tests pass");
 * console.log(goal.status, goal.revision, goals.due); // active 1 true
 * ```
 */
export class Goals {
  #goal: GoalRecord | undefined;
  #armed = false;
  readonly #persist: ((goal: GoalRecord | null) => void) | undefined;
  readonly #newId: () => string;
  readonly #pending: GoalEvent[] = [];
  readonly #listeners = new Set<(event: GoalEvent) => void>();
  /** The bounds of `[agent]`. */
  readonly bounds: GoalBounds;

  /** A session's goal: none, or the one its transcript recorded (disarmed). */
  constructor(opts: GoalsOptions = {}) {
    this.#goal = opts.restored ? copy(opts.restored) : undefined;
    this.#persist = opts.persist;
    this.bounds = { ...opts.bounds };
    this.#newId = opts.newId ?? (() => `goal-${crypto.randomUUID().slice(0, 8)}`);
  }

  /** The goal now, if the session has one (a copy). */
  get state(): GoalState | undefined {
    return this.#goal ? copy(this.#goal) : undefined;
  }

  /** Whether the driver may admit rounds in this process. Never persisted. */
  get armed(): boolean {
    return this.#armed;
  }

  /** Whether a round is due: the goal is `active` and armed. */
  get due(): boolean {
    return this.#armed && this.#goal?.status === "active";
  }

  /** Calls `listener` with every change from now on; returns a function that stops it. */
  subscribe(listener: (event: GoalEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The changes since the last call, for the event stream. */
  drain(): GoalEvent[] {
    return this.#pending.splice(0);
  }

  #change(change: GoalChange, message?: string, goal = this.#goal): GoalEvent {
    if (change !== "cleared") this.#persist?.(this.#goal ? copy(this.#goal) : null);
    const event: GoalEvent = {
      type: "goal",
      change,
      goal: copy(goal!),
      armed: this.#armed,
      ...(message ? { message } : {}),
    };
    this.#pending.push(event);
    for (const listener of this.#listeners) listener(event);
    return event;
  }

  #activate(goal: GoalRecord): void {
    goal.status = "active";
    goal.since = { rounds: goal.rounds, tokens: goal.tokens };
    delete goal.reason;
    delete goal.pausedBy;
  }

  // ── The user's commands (and the host's: `--goal`, a Coordinator's Goal start) ────────

  /**
   * Starts a goal for `objective`, replacing any goal the session had, and arms it: the
   * driver admits rounds from the next idle moment on.
   */
  start(objective: string): GoalState {
    const text = objective.trim();
    if (!text) throw new GoalRefusal("a goal needs an objective");
    const goal: GoalRecord = {
      id: this.#newId(),
      revision: 1,
      objective: text,
      status: "active",
      rounds: 0,
      tokens: 0,
      requests: 0,
      since: { rounds: 0, tokens: 0 },
    };
    this.#goal = goal;
    this.#armed = true;
    this.#change("created");
    return copy(goal);
  }

  /** `/goal resume`: a paused goal becomes active (bounds count afresh) and armed; an active one is armed. */
  resume(): GoalState {
    const goal = this.#goal;
    if (!goal) {
      throw new GoalRefusal("there is no goal to resume; start one with /goal <objective>");
    }
    if (goal.status === "complete" || goal.status === "blocked") {
      throw new GoalRefusal(
        `goal ${goal.id} is ${goal.status}; start a new one with /goal <objective>`,
      );
    }
    this.#armed = true;
    if (goal.status === "paused") {
      this.#activate(goal);
      goal.revision++;
    }
    this.#change("resumed");
    return copy(goal);
  }

  /** Pauses the goal (the user, Ctrl-C, a bound, an error); it stays until resumed. */
  pause(by: "user" | "bound" | "error", reason: string): GoalState | undefined {
    const goal = this.#goal;
    if (!goal || goal.status !== "active") {
      this.#armed = false;
      return this.state;
    }
    goal.status = "paused";
    goal.pausedBy = by;
    goal.reason = reason;
    goal.revision++;
    this.#armed = false;
    this.#change(by === "bound" ? "bound" : "paused", reason);
    return copy(goal);
  }

  /** `/goal clear`: forgets the goal. */
  clear(): void {
    const goal = this.#goal;
    if (!goal) return;
    this.#goal = undefined;
    this.#armed = false;
    this.#persist?.(null);
    this.#change("cleared", undefined, goal);
  }

  /** Stops the driver without changing the goal (e.g. before the session is closed). */
  disarm(): void {
    this.#armed = false;
  }

  // ── The driver ─────────────────────────────────────────────────────────────────────────

  /**
   * The bound the goal has reached, in words, or undefined. Rounds and tokens count from the
   * goal's last activation, so a resumed goal gets the same allowance again.
   */
  boundReached(): string | undefined {
    const goal = this.#goal;
    if (!goal) return undefined;
    const { maxRounds, tokenBudget } = this.bounds;
    if (maxRounds !== undefined && goal.rounds - goal.since.rounds >= maxRounds) {
      return `reached max_goal_rounds (${maxRounds} round${maxRounds === 1 ? "" : "s"})`;
    }
    if (tokenBudget !== undefined && goal.tokens - goal.since.tokens >= tokenBudget) {
      return `reached goal_token_budget (${fmt(tokenBudget)} tokens)`;
    }
    return undefined;
  }

  /** The driver admitted a round; returns its number. */
  admitRound(): number {
    const goal = this.#goal;
    if (!goal) throw new GoalRefusal("there is no goal");
    goal.rounds++;
    this.#change("round", `round ${goal.rounds}`);
    return goal.rounds;
  }

  /** Adds what one provider request of a round used (observed; persisted with the next change). */
  observe(usage: { promptTokens: number; completionTokens: number }): void {
    const goal = this.#goal;
    if (!goal) return;
    goal.tokens += usage.promptTokens + usage.completionTokens;
    goal.requests++;
  }

  /** Writes the counters (at the end of a round). */
  flush(): void {
    if (this.#goal) this.#persist?.(copy(this.#goal));
  }

  // ── The model's capabilities ───────────────────────────────────────────────────────────

  /** `create_goal` by the model: a new goal, armed; refused while another is active or paused. */
  create(objective: string): GoalState {
    const goal = this.#goal;
    if (goal && (goal.status === "active" || goal.status === "paused")) {
      throw new GoalRefusal(
        `goal ${goal.id} (revision ${goal.revision}) is ${goal.status}; complete, block or edit ` +
          "it with update_goal instead",
      );
    }
    return this.start(objective);
  }

  /** `update_goal` by the model, with the exact id and current revision. */
  update(args: {
    action: GoalAction;
    id: string;
    revision: number;
    objective?: string;
    reason?: string;
  }): GoalState {
    const goal = this.#goal;
    if (!goal) throw new GoalRefusal("there is no goal; create one with create_goal");
    if (args.id !== goal.id) {
      throw new GoalRefusal(
        `no goal "${args.id}"; the current goal is ${goal.id} at revision ${goal.revision}`,
      );
    }
    if (args.revision !== goal.revision) {
      throw new GoalRefusal(
        `revision ${args.revision} of goal ${goal.id} is stale; the current revision is ` +
          `${goal.revision} (status ${goal.status}). Read it with get_goal and try again.`,
      );
    }
    const reason = args.reason?.trim() || undefined;
    switch (args.action) {
      case "edit": {
        const text = args.objective?.trim();
        if (!text) throw new GoalRefusal("edit needs a new objective");
        goal.objective = text;
        goal.revision++;
        this.#change("edited");
        break;
      }
      case "pause":
        if (goal.status !== "active") throw new GoalRefusal(`goal ${goal.id} is ${goal.status}`);
        goal.status = "paused";
        goal.pausedBy = "model";
        goal.reason = reason ?? "paused by the model";
        goal.revision++;
        this.#armed = false;
        this.#change("paused", goal.reason);
        break;
      case "resume":
        if (goal.status !== "paused") throw new GoalRefusal(`goal ${goal.id} is ${goal.status}`);
        // A pause the model did not make is the user's to lift: a bound, Ctrl-C, an error.
        if (goal.pausedBy !== "model") {
          throw new GoalRefusal(
            `goal ${goal.id} was paused by ${
              goal.pausedBy === "bound" ? "a bound" : `the ${goal.pausedBy ?? "user"}`
            } (${goal.reason ?? "no reason given"}); only the user can resume it`,
          );
        }
        this.#activate(goal);
        goal.revision++;
        this.#change("resumed");
        break;
      case "complete":
        if (goal.status !== "active" && goal.status !== "paused") {
          throw new GoalRefusal(`goal ${goal.id} is already ${goal.status}`);
        }
        goal.status = "complete";
        if (reason) goal.reason = reason;
        else delete goal.reason;
        delete goal.pausedBy;
        goal.revision++;
        this.#armed = false;
        this.#change("complete", reason);
        break;
      case "blocked":
        if (goal.status !== "active") throw new GoalRefusal(`goal ${goal.id} is ${goal.status}`);
        if (goal.rounds < MIN_BLOCKED_ROUNDS) {
          throw new GoalRefusal(
            `a goal can be called blocked only after ${MIN_BLOCKED_ROUNDS} rounds; this one ` +
              `has run ${goal.rounds}. Keep working, or pause it to ask the user.`,
          );
        }
        if (!reason) throw new GoalRefusal("blocked needs a reason: what stands in the way");
        goal.status = "blocked";
        goal.reason = reason;
        delete goal.pausedBy;
        goal.revision++;
        this.#armed = false;
        this.#change("blocked", reason);
        break;
      default:
        throw new GoalRefusal(
          `unknown action "${String(args.action)}"; use one of ${GOAL_ACTIONS.join(", ")}`,
        );
    }
    return copy(goal);
  }

  /** The model's view of the goal, as a tool result's text. */
  describe(): string {
    const goal = this.#goal;
    if (!goal) return "There is no goal. create_goal starts one.";
    return JSON.stringify({ ...goal, armed: this.#armed });
  }

  /**
   * The volatile block of the current user turn while the goal is active: objective, id,
   * revision, round, status and bounds, and how to end it. Never part of the system prompt.
   */
  turnBlock(): string | undefined {
    const goal = this.#goal;
    if (!goal || goal.status !== "active") return undefined;
    const { maxRounds, tokenBudget } = this.bounds;
    const rounds = maxRounds === undefined
      ? `round ${goal.rounds} (no round limit)`
      : `round ${goal.rounds} of ${goal.since.rounds + maxRounds} before it pauses`;
    const tokens = tokenBudget === undefined
      ? `${fmt(goal.tokens)} tokens used`
      : `${fmt(goal.tokens - goal.since.tokens)} of ${fmt(tokenBudget)} budgeted tokens used`;
    return [
      `<goal id="${goal.id}" revision="${goal.revision}" status="${goal.status}">`,
      `Objective: ${goal.objective}`,
      `Progress: ${rounds}; ${tokens}; ${goal.requests} provider requests.`,
      "Work toward the objective. Your final answer does not end the goal: when it is done, " +
      'call use_capability with capability "update_goal" and arguments {action: "complete", ' +
      'id, revision}; when it cannot go on (at least 3 rounds) action "blocked" with a ' +
      'reason; "pause" to wait for the user; "edit" with objective to restate it. ' +
      '"get_goal" reads the state.',
      "</goal>",
    ].join("\n");
  }

  /** `get_goal`, `create_goal` and `update_goal`, for the `use_capability` proxy. */
  capabilities(): Capability[] {
    const result = (run: () => string): Promise<ToolResult> => {
      try {
        return Promise.resolve({ content: run() });
      } catch (error) {
        if (!(error instanceof GoalRefusal)) throw error;
        return Promise.resolve({ content: error.message, isError: true, code: "conflict" });
      }
    };
    const invalid = (message: string): Promise<ToolResult> =>
      Promise.resolve({ content: message, isError: true, code: "invalid_arguments" });
    return [
      {
        id: "get_goal",
        description: "Read the session's goal: id, revision, objective, status, rounds, tokens.",
        schema: { type: "object", properties: {} },
        readOnly: true,
        rule: "get_goal",
        invoke: () => result(() => this.describe()),
      },
      {
        id: "create_goal",
        description:
          "Start a long-running goal the user asked for; the harness then runs rounds toward it " +
          "until update_goal completes, blocks or pauses it.",
        schema: {
          type: "object",
          properties: { objective: { type: "string", description: "What done means." } },
          required: ["objective"],
        },
        // Session state only: nothing in the workspace changes.
        readOnly: true,
        rule: "create_goal",
        invoke: (args) => {
          if (typeof args.objective !== "string" || !args.objective.trim()) {
            return invalid("create_goal needs an objective (a non-empty string)");
          }
          return result(() => this.#created(this.create(args.objective as string)));
        },
      },
      {
        id: "update_goal",
        description: `Change the goal: action ${
          GOAL_ACTIONS.join("|")
        } with its exact id and current revision; edit takes objective, blocked a reason.`,
        schema: {
          type: "object",
          properties: {
            action: { type: "string", enum: [...GOAL_ACTIONS] },
            id: { type: "string" },
            revision: { type: "integer", minimum: 1 },
            objective: { type: "string" },
            reason: { type: "string" },
          },
          required: ["action", "id", "revision"],
        },
        readOnly: true,
        rule: "update_goal",
        invoke: (args) => {
          const { action, id, revision, objective, reason } = args;
          if (!(GOAL_ACTIONS as readonly unknown[]).includes(action)) {
            return invalid(`update_goal needs action, one of ${GOAL_ACTIONS.join(", ")}`);
          }
          if (typeof id !== "string" || !Number.isInteger(revision)) {
            return invalid("update_goal needs id (a string) and revision (an integer)");
          }
          if (
            (objective !== undefined && typeof objective !== "string") ||
            (reason !== undefined && typeof reason !== "string")
          ) return invalid("objective and reason are strings");
          return result(() => {
            const goal = this.update({
              action: action as GoalAction,
              id,
              revision: revision as number,
              objective: objective as string | undefined,
              reason: reason as string | undefined,
            });
            return `Goal ${goal.id} is ${goal.status} at revision ${goal.revision}.`;
          });
        },
      },
    ];
  }

  #created(goal: GoalState): string {
    return `Created goal ${goal.id} at revision ${goal.revision}. The harness runs rounds ` +
      "toward it after this turn; end it with update_goal.";
  }
}
