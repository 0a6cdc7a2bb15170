/**
 * Plan mode (spec §3.7, issue 15 point 5): the host-wide collaboration state in which writers
 * are refused and the agent's plan needs a person's approval, and the `exit_plan_mode`
 * capability through which the agent hands the plan in.
 *
 * @module
 */
export {
  EXIT_PLAN_MODE,
  PLAN_TURN_BLOCK,
  PLAN_WINDOW_MS,
  type PlanExitReason,
  PlanMode,
  type PlanModeChange,
  type PlanModeOptions,
} from "./state.ts";
export { exitPlanModeCapability, planArgument, type PlanResultMeta } from "./exit_plan.ts";
