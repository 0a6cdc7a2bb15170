/**
 * The plan a planner delivers (spec §3.5) and `submit_plan`, its only delivery channel. The
 * schema separates touch points the planner verified from candidates the executor must check,
 * and carries non-goals, risks, acceptance criteria and command-level verification when the
 * evidence supports them.
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "../../tools/define.ts";
import type { Tool } from "../../tools/types.ts";

const touchPoint = z.object({
  path: z.string().min(1),
  note: z.string().optional(),
});

const planInput = z.object({
  title: z.string().min(1).describe("One line naming the change."),
  summary: z.string().min(1).describe("What will be done and why, in a few sentences."),
  steps: z.array(z.object({ title: z.string().min(1), detail: z.string().optional() })).min(1)
    .describe("Ordered steps for the executor."),
  verified: z.array(touchPoint).optional().describe(
    "Files or symbols you read and confirmed matter, with what you found.",
  ),
  candidates: z.array(touchPoint).optional().describe(
    "Likely touch points you did not confirm; the executor checks them first.",
  ),
  non_goals: z.array(z.string()).optional(),
  risks: z.array(z.string()).optional(),
  acceptance: z.array(z.string()).optional().describe("What must hold when done."),
  verification: z.array(z.string()).optional().describe("Commands that prove it, e.g. tests."),
});

/** A file or symbol a plan touches. */
export interface TouchPoint {
  /** Workspace-relative path (optionally with a symbol). */
  path: string;
  /** What was found there, or why it matters. */
  note?: string;
}

/** One step of a plan. */
export interface PlanStep {
  /** What to do, in one line. */
  title: string;
  /** How, when it needs saying. */
  detail?: string;
}

/** A submitted plan, as the planner wrote it. */
export interface PlanBody {
  /** One line naming the change. */
  title: string;
  /** What will be done and why. */
  summary: string;
  /** Ordered steps for the executor. */
  steps: PlanStep[];
  /** Touch points the planner read and confirmed. */
  verified?: TouchPoint[];
  /** Likely touch points the executor must check first. */
  candidates?: TouchPoint[];
  /** What the change deliberately leaves alone. */
  non_goals?: string[];
  /** What could go wrong. */
  risks?: string[];
  /** What must hold when done. */
  acceptance?: string[];
  /** Commands that prove it. */
  verification?: string[];
}

/** A plan with its stable id (a digest of its content). */
export interface Plan extends PlanBody {
  /** `plan-` and ten hex digits of the content's SHA-256. */
  id: string;
}

// The schema and the interface describe the same shape.
const _sameShape: (body: z.infer<typeof planInput>) => PlanBody = (body) => body;

/** The planner's delivery tool's name. */
export const SUBMIT_PLAN = "submit_plan";

/**
 * A plan written as Markdown (Plan mode's `exit_plan_mode`), with its id and a title: its
 * first heading or line.
 */
export async function markdownPlan(
  markdown: string,
): Promise<{ id: string; title: string; text: string }> {
  const first = markdown.split("\n").find((line) => line.trim()) ?? "Plan";
  return {
    id: await planId(markdown),
    title: first.replace(/^#+\s*/, "").trim().slice(0, 120),
    text: markdown.trim(),
  };
}

/** A content digest: the same plan always has the same id, and nothing else moves it. */
async function planId(body: PlanBody | string): Promise<string> {
  const bytes = new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `plan-${[...digest.slice(0, 5)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Reads a plan back from `submit_plan`'s result metadata; undefined when it holds none. */
export function planOf(meta: Record<string, unknown> | undefined): Plan | undefined {
  const plan = meta?.plan as Plan | undefined;
  return plan && typeof plan.id === "string" && planInput.safeParse(plan).success
    ? plan
    : undefined;
}

/** The `submit_plan` tool: validates the plan and hands it to the host in the result's `meta`. */
export function submitPlanTool(): Tool {
  return defineTool({
    name: SUBMIT_PLAN,
    description:
      "Deliver your plan. This is the only way a plan reaches the user or the executor; plain text is not delivered. Call it once, when your research is done.",
    input: planInput,
    readOnly: true,
    async run(args) {
      const plan: Plan = { id: await planId(args), ...args };
      return { content: `Plan ${plan.id} received.`, meta: { plan } };
    },
  }) as Tool;
}

function list(title: string, items: readonly string[] | undefined): string[] {
  return items?.length ? [`**${title}**`, ...items.map((i) => `- ${i}`), ""] : [];
}

function points(title: string, items: PlanBody["verified"]): string[] {
  return items?.length
    ? [
      `**${title}**`,
      ...items.map((p) => `- \`${p.path}\`${p.note ? `: ${p.note}` : ""}`),
      "",
    ]
    : [];
}

/**
 * The plan as Markdown, for the executor's handoff, the approval overlay and saved plans.
 *
 * @example
 * ```ts
 * import { renderPlan } from "@reasonix/reasonix";
 *
 * const text = renderPlan({
 *   id: "plan-0123456789",
 *   title: "Fix login",
 *   summary: "Trim the password before hashing.",
 *   steps: [{ title: "Edit auth.ts" }],
 * });
 * console.log(text.split("\n")[0]); // ## Fix login
 * ```
 */
export function renderPlan(plan: Plan): string {
  return [
    `## ${plan.title}`,
    "",
    plan.summary,
    "",
    "**Steps**",
    ...plan.steps.map((s, i) => `${i + 1}. ${s.title}${s.detail ? `: ${s.detail}` : ""}`),
    "",
    ...points("Verified touch points", plan.verified),
    ...points("Candidate touch points (verify first)", plan.candidates),
    ...list("Non-goals", plan.non_goals),
    ...list("Risks", plan.risks),
    ...list("Acceptance criteria", plan.acceptance),
    ...list("Verification", plan.verification?.map((c) => `\`${c}\``)),
  ].join("\n").trimEnd();
}
