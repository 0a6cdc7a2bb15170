/**
 * Plan mode, the single-model collaboration state (spec §3.7, issue 15 point 5): the user turns
 * it on (`/plan`, Shift+Tab); while it is on the permission gate refuses writers, and the agent
 * presents its plan with the `exit_plan_mode` capability, which only a person may approve. An
 * approved plan ends plan mode and opens a short window in which the plan's own edits and plain
 * commands run without asking; the window never approves a further plan, control files, wider
 * write scope, `ask` rules or nested/indirect commands.
 *
 * The state is host-wide and independent of the permission preset: entering plan mode keeps
 * the preset, leaving it returns to the same preset. The model learns that plan mode is on
 * only from a block on the current user turn ({@linkcode PlanMode.turnBlock}); the system
 * prompt and the tool list never change, so switching keeps the cached prefix.
 *
 * @module
 */

/** The capability id (and permission-rule family) of the plan hand-in. */
export const EXIT_PLAN_MODE = "exit_plan_mode";

/** How long, at most, the window after an approved plan lasts; it also ends with the turn. */
export const PLAN_WINDOW_MS = 10 * 60_000;

/** Why plan mode ended. */
export type PlanExitReason = "user" | "approved";

/** A change of plan mode, as {@linkcode PlanMode.subscribe} reports it. */
export type PlanModeChange =
  | { type: "entered" }
  | { type: "exited"; reason: PlanExitReason; plan?: string }
  | { type: "refused"; plan: string; feedback?: string };

/** Options of {@linkcode PlanMode}. */
export interface PlanModeOptions {
  /** The clock (tests move it); default `Date.now`. */
  now?: () => number;
}

/**
 * The plan-mode state of one host. Front ends call {@linkcode enter} and {@linkcode exit};
 * the permission gate reads {@linkcode active} and records approvals.
 *
 * @example Toggle plan mode and read the turn block
 * ```ts
 * import { PlanMode } from "@reasonix/reasonix";
 *
 * const plan = new PlanMode();
 * plan.enter();
 * console.log(plan.active, plan.turnBlock()?.startsWith("<plan-mode>")); // true true
 * plan.exit();
 * console.log(plan.turnBlock()); // undefined
 * ```
 */
export class PlanMode {
  #active = false;
  /** A plan the user approved whose `exit_plan_mode` call has not run yet. */
  #granted: string | undefined;
  /** When the window after an approval closes (ms), or undefined when it is shut. */
  #windowUntil: number | undefined;
  #approved: string | undefined;
  readonly #listeners = new Set<(change: PlanModeChange) => void>();
  readonly #now: () => number;

  /** A plan mode that starts off; a host makes one for its permission gate. */
  constructor(opts: PlanModeOptions = {}) {
    this.#now = opts.now ?? Date.now;
  }

  /** Whether plan mode is on. */
  get active(): boolean {
    return this.#active;
  }

  /** The latest plan the user approved, as Markdown. */
  get approvedPlan(): string | undefined {
    return this.#approved;
  }

  /** Turns plan mode on from the next tool call and the next user turn. False if it was on. */
  enter(): boolean {
    if (this.#active) return false;
    this.#active = true;
    this.#granted = undefined;
    this.#windowUntil = undefined;
    this.#emit({ type: "entered" });
    return true;
  }

  /** Turns plan mode off without a plan (the user left it). False if it was off. */
  exit(): boolean {
    if (!this.#active) return false;
    this.#active = false;
    this.#granted = undefined;
    this.#emit({ type: "exited", reason: "user" });
    return true;
  }

  /** `/plan` without arguments: on when off, off when on. Returns whether it is on now. */
  toggle(): boolean {
    if (this.#active) this.exit();
    else this.enter();
    return this.#active;
  }

  /** Listens for changes; returns a function that stops listening. */
  subscribe(listener: (change: PlanModeChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The block the host appends to each user turn: present only while plan mode is on. Reading
   * it marks a new user turn, which also closes the window of an approved plan.
   */
  turnBlock(): string | undefined {
    this.#windowUntil = undefined;
    if (!this.#active) return undefined;
    return PLAN_TURN_BLOCK;
  }

  /**
   * Records that a person approved `plan` (the gate calls this after the approval prompt); the
   * `exit_plan_mode` call that follows consumes it with {@linkcode takeApproval}.
   */
  grantApproval(plan: string): void {
    this.#granted = plan;
  }

  /** Records that a person kept planning instead of approving `plan`. */
  refuse(plan: string, feedback?: string): void {
    this.#emit({ type: "refused", plan, ...(feedback ? { feedback } : {}) });
  }

  /**
   * Consumes the approval of `plan`: plan mode ends and the short execution window opens.
   * False (nothing changes) when no person approved exactly this plan.
   */
  takeApproval(plan: string): boolean {
    if (this.#granted === undefined || this.#granted !== plan) return false;
    this.#granted = undefined;
    this.#active = false;
    this.#approved = plan;
    // A plan approved inside the window of an earlier one starts a window of its own.
    this.#windowUntil = this.#now() + PLAN_WINDOW_MS;
    this.#emit({ type: "exited", reason: "approved", plan });
    return true;
  }

  /** Whether the window after an approved plan is open now (plan mode off, same turn). */
  get windowOpen(): boolean {
    if (this.#active || this.#windowUntil === undefined) return false;
    if (this.#now() > this.#windowUntil) this.#windowUntil = undefined;
    return this.#windowUntil !== undefined;
  }

  #emit(change: PlanModeChange): void {
    for (const listener of [...this.#listeners]) listener(change);
  }
}

/** What the model reads on every user turn while plan mode is on. Fixed text: no counters. */
export const PLAN_TURN_BLOCK = `<plan-mode>
Plan mode is on: the user wants a plan before any change. Research with read-only tools only; file writers, memory writes, MCP tools that are not read-only and shell commands that are not plainly read-only are refused. When the plan is ready, present it with use_capability {"capability":"${EXIT_PLAN_MODE}","arguments":{"plan":"<the plan as Markdown>"}}. The user approves it (plan mode ends; carry the plan out in this turn) or keeps you planning.
</plan-mode>`;
