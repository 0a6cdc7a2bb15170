/**
 * Subagents (spec §3.10–§3.16): profiles, the one construction primitive, enforced write
 * claims, explicit context capsules and the session's scheduler.
 *
 * @module
 */
export * from "./adjudicate.ts";
export * from "./capsule.ts";
export * from "./child_tools.ts";
export * from "./claims.ts";
export * from "./complete_subtask.ts";
export * from "./counters.ts";
export * from "./fleet.ts";
export * from "./profile.ts";
export * from "./prompts.ts";
export * from "./runner.ts";
export * from "./scheduler.ts";
export * from "./task_tool.ts";
export * from "./types.ts";
