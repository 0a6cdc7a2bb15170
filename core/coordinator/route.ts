/**
 * Deterministic routing between the executor and the planner (spec §3.5). The route comes
 * from the raw user text and trusted turn metadata only: a leading slash command, a marker
 * phrase at the start of the text or as its last clause, or a flag such as `run --plan`.
 * Nothing is inferred from wording, length or file counts, and text inside quotes or code
 * spans never routes. Everything else goes to the executor.
 *
 * @module
 */

/** Where a user turn goes. */
export type Route = "executor" | "plan_first" | "plan_approve" | "plan_only" | "goal_start";

/** The routes that run the planner. */
export type PlannerRoute = Exclude<Route, "executor">;

/** Why a turn took its route; recorded without the user's text. */
export type RouteReason =
  | "default"
  | "slash_command"
  | "leading_marker"
  | "trailing_marker"
  | "flag"
  | "goal";

/** A routing decision. */
export interface RouteDecision {
  /** Where the turn goes. */
  route: Route;
  /** Why, without the user's text. */
  reason: RouteReason;
  /** The task with the routing command or marker removed (the whole text by default). */
  task: string;
}

/** Trusted metadata of a turn, set by the host or a flag, never parsed from the user's text. */
export interface TurnRoute {
  /** `reasonix run --plan first|approve|only`. */
  plan?: "first" | "approve" | "only";
  /** A goal was started explicitly (`/goal <objective>`, `run --goal`). */
  goalStart?: boolean;
}

const SLASH: Record<string, PlannerRoute> = {
  "/plan": "plan_first",
  "/plan-first": "plan_first",
  "/plan-approve": "plan_approve",
  "/plan-only": "plan_only",
};

/**
 * Marker phrases, most specific first (a phrase that contains another is listed before it).
 * English matches whole words, case-insensitively; Chinese matches the exact characters.
 */
export const ROUTE_MARKERS: readonly { phrase: string; route: PlannerRoute }[] = [
  { phrase: "plan first and wait for my approval", route: "plan_approve" },
  { phrase: "plan and wait for my approval", route: "plan_approve" },
  { phrase: "plan and wait for approval", route: "plan_approve" },
  { phrase: "plan for approval", route: "plan_approve" },
  { phrase: "先规划再等我确认", route: "plan_approve" },
  { phrase: "规划后等我确认", route: "plan_approve" },
  { phrase: "规划后等待确认", route: "plan_approve" },
  { phrase: "plan only", route: "plan_only" },
  { phrase: "only plan", route: "plan_only" },
  { phrase: "just plan", route: "plan_only" },
  { phrase: "只规划", route: "plan_only" },
  { phrase: "仅规划", route: "plan_only" },
  { phrase: "plan first", route: "plan_first" },
  { phrase: "plan it first", route: "plan_first" },
  { phrase: "make a plan first", route: "plan_first" },
  { phrase: "先规划", route: "plan_first" },
  { phrase: "先做计划", route: "plan_first" },
];

const FLAG: Record<NonNullable<TurnRoute["plan"]>, PlannerRoute> = {
  first: "plan_first",
  approve: "plan_approve",
  only: "plan_only",
};

/** Separators between a leading marker and the task. */
const LEAD_SEPARATOR = /^[\s:：,，;；.。!！-]+/u;
/** Separators before a trailing marker (the end of the task clause). */
const CLAUSE_END = /[,，;；.。!！:：]\s*$|\s[-—–]+\s*$/u;
/** What may follow a trailing marker. */
const TAIL = /^[\s.。!！?？]*$/u;

/**
 * The text with quoted and code spans blanked to spaces (same length), so a marker inside an
 * example never routes: backtick spans and fences, "double", “curly”, 「corner」 quotes, and
 * 'single' quotes that open at a word boundary (so "don't" stays intact).
 */
export function maskQuoted(text: string): string {
  const pairs: [RegExp][] = [
    [/```[\s\S]*?(```|$)/g],
    [/`[^`]*`?/g],
    [/"[^"]*"?/g],
    [/“[^”]*”?/g],
    [/「[^」]*」?/g],
    [/『[^』]*』?/g],
    [/‘[^’]*’?/g],
    [/(?<![\p{L}\p{N}])'[^']*'(?![\p{L}\p{N}])/gu],
  ];
  let out = text;
  for (const [pattern] of pairs) out = out.replace(pattern, (m) => " ".repeat(m.length));
  return out;
}

const isCjk = (phrase: string) => /[\u3400-\u9fff]/u.test(phrase);

/** Whether `masked` starts with `phrase` as a whole word (English) or exactly (Chinese). */
function startsWith(masked: string, phrase: string): boolean {
  const head = masked.slice(0, phrase.length);
  if (isCjk(phrase)) return head === phrase;
  if (head.toLowerCase() !== phrase) return false;
  return !/[\p{L}\p{N}]/u.test(masked.charAt(phrase.length));
}

/** Whether `masked` ends with `phrase` (then only closing punctuation) as a whole word. */
function endsWith(masked: string, phrase: string): number | undefined {
  const trimmed = masked.replace(/[\s.。!！?？]+$/u, "");
  const at = trimmed.length - phrase.length;
  if (at < 0) return undefined;
  const tail = trimmed.slice(at);
  if (isCjk(phrase) ? tail !== phrase : tail.toLowerCase() !== phrase) return undefined;
  if (!isCjk(phrase) && /[\p{L}\p{N}]/u.test(trimmed.charAt(at - 1))) return undefined;
  if (!TAIL.test(masked.slice(at + phrase.length))) return undefined;
  return at;
}

/**
 * Routes one user turn.
 *
 * @example
 * ```ts
 * import { routeTurn } from "@reasonix/reasonix";
 *
 * console.log(routeTurn("fix the login bug, plan first").route); // plan_first
 * console.log(routeTurn('what does "plan first" mean?').route); // executor
 * console.log(routeTurn("/plan-only tidy the docs").task); // tidy the docs
 * ```
 */
export function routeTurn(text: string, meta: TurnRoute = {}): RouteDecision {
  const trimmed = text.trim();
  if (meta.plan) return { route: FLAG[meta.plan], reason: "flag", task: trimmed };
  if (meta.goalStart) return { route: "goal_start", reason: "goal", task: trimmed };

  const slash = /^(\/[a-z-]+)(?=\s|$)/.exec(trimmed);
  if (slash && SLASH[slash[1]]) {
    const task = trimmed.slice(slash[1].length).trim();
    // A bare `/plan` is the Plan-mode switch of the interactive UI, not a task.
    if (task) return { route: SLASH[slash[1]], reason: "slash_command", task };
  }

  const masked = maskQuoted(trimmed);
  for (const { phrase, route } of ROUTE_MARKERS) {
    if (!startsWith(masked, phrase)) continue;
    const rest = trimmed.slice(phrase.length);
    const separator = LEAD_SEPARATOR.exec(rest)?.[0] ?? "";
    // English needs a separator after the marker ("plan first: …"); Chinese may run on.
    if (!separator && !isCjk(phrase)) continue;
    const task = rest.slice(separator.length).trim();
    if (task) return { route, reason: "leading_marker", task };
  }
  for (const { phrase, route } of ROUTE_MARKERS) {
    const at = endsWith(masked, phrase);
    if (at === undefined || at === 0) continue;
    const before = trimmed.slice(0, at);
    // The marker must be its own clause: "…, plan first", "…。先规划", "… - plan only".
    // A run-on ("不要先规划", "don't plan first") is not a boundary.
    if (!CLAUSE_END.test(before)) continue;
    const task = before.replace(CLAUSE_END, "").trim();
    if (task) return { route, reason: "trailing_marker", task };
  }
  return { route: "executor", reason: "default", task: trimmed };
}
