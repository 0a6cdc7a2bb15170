/**
 * Goal mode (spec §3.7): a session's long-running goal, the model's `get_goal`, `create_goal`
 * and `update_goal` capabilities, and the driver that admits one round at a time while the
 * goal is active and armed.
 *
 * @module
 */
export {
  GOAL_ACTIONS,
  type GoalAction,
  type GoalBounds,
  type GoalEvent,
  GoalRefusal,
  Goals,
  type GoalsOptions,
  type GoalState,
  type GoalStatus,
  MIN_BLOCKED_ROUNDS,
  RESUME_HINT,
} from "./goals.ts";
export { CONTINUE_TEXT, GoalDriver, type GoalDriverOptions, GoalRunner } from "./driver.ts";
