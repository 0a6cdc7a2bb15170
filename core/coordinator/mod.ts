/**
 * The planner/executor coordinator (spec §3.5): deterministic routing, the planner's
 * `submit_plan` delivery and the handoff to the executor.
 *
 * @module
 */
export * from "./coordinator.ts";
export * from "./plan.ts";
export * from "./planner_prompt.ts";
export * from "./route.ts";
export * from "./totals.ts";
