/**
 * The `exit_plan_mode` capability: how the agent hands in its plan. It sits behind the fixed
 * `use_capability` proxy rather than being a direct tool, so the tool list (and the first
 * request) is the same byte for byte whether plan mode is on or off and costs nothing while
 * it is off; the plan-mode turn block tells the model how to call it.
 *
 * The approval itself is the permission gate's: it shows the plan to a person (an approval
 * request of kind `plan`) before this runs, and no preset, rule or hook answers for them.
 *
 * @module
 */
import type { Capability } from "../../tools/capability.ts";
import type { ToolResult } from "../../tools/types.ts";
import { EXIT_PLAN_MODE, type PlanMode } from "./state.ts";

/** The plan text of an `exit_plan_mode` call's arguments, or undefined when there is none. */
export function planArgument(args: unknown): string | undefined {
  const plan = (args as { plan?: unknown } | null)?.plan;
  return typeof plan === "string" && plan.trim() !== "" ? plan : undefined;
}

/** What a result of `exit_plan_mode` carries in `meta.plan`, for front ends and the lead. */
export interface PlanResultMeta {
  status: "approved";
  /** The approved plan, as Markdown. */
  plan: string;
}

/**
 * Builds the capability over a host's plan mode; its id is `exit_plan_mode`.
 */
export function exitPlanModeCapability(plan: PlanMode): Capability {
  return {
    id: EXIT_PLAN_MODE,
    description: "Plan mode only: present the finished plan (Markdown) for the user's approval. " +
      "Approved: plan mode ends and you carry the plan out. Not approved: keep planning.",
    schema: {
      type: "object",
      properties: { plan: { type: "string", description: "The plan, as Markdown." } },
      required: ["plan"],
    },
    readOnly: false,
    rule: EXIT_PLAN_MODE,
    invoke(args): Promise<ToolResult> {
      const text = planArgument(args);
      if (text === undefined) {
        return Promise.resolve({
          content: 'exit_plan_mode needs the plan as Markdown in "plan".',
          isError: true,
          code: "invalid_arguments",
        });
      }
      // Only a call the gate asked a person about, with exactly this plan, ends plan mode.
      if (!plan.takeApproval(text)) {
        return Promise.resolve({
          content: "No person approved this plan, so nothing changed" +
            (plan.active ? " and plan mode stays on." : "."),
          isError: true,
          code: "permission_denied",
        });
      }
      const meta: PlanResultMeta = { status: "approved", plan: text };
      return Promise.resolve({
        content: "The user approved the plan. Plan mode is off: carry the plan out now, in " +
          "this turn, step by step.",
        meta: { plan: meta },
      });
    },
  };
}
