/**
 * Shape checks for transcript records read back from disk. A line that parses as JSON can still
 * be damaged (a bad disk, a hand edit, another program); a record that fails these checks is
 * skipped and counted like a torn line instead of reaching the agent loop.
 *
 * @module
 */
import type { Message } from "../../providers/types.ts";
import type {
  GoalRecord,
  MaintenanceFailure,
  OfferedTool,
  ProjectionRecord,
  RawRef,
  SessionMeta,
} from "./records.ts";

const ROLES = new Set(["system", "user", "assistant", "tool"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optional(value: unknown, check: (v: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

const isString = (v: unknown): boolean => typeof v === "string";
const isCount = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;
const isCounts = (v: unknown): boolean => Array.isArray(v) && v.every(isCount);

function isToolCall(v: unknown): boolean {
  return isObject(v) && isString(v.id) && isString(v.name) && isString(v.arguments);
}

function isImage(v: unknown): boolean {
  return isObject(v) && (isString(v.url) || (isString(v.mediaType) && isString(v.data)));
}

/** A `Message` as the session stores it. */
export function isMessage(v: unknown): v is Message {
  return isObject(v) && ROLES.has(v.role as string) && isString(v.content) &&
    optional(v.reasoning, isString) && optional(v.reasoningSignature, isString) &&
    optional(v.toolCalls, (c) => Array.isArray(c) && c.every(isToolCall)) &&
    optional(v.toolCallId, isString) && optional(v.name, isString) &&
    optional(v.isError, (b) => typeof b === "boolean") && optional(v.rawContent, isString) &&
    optional(v.images, (i) => Array.isArray(i) && i.every(isImage));
}

/** Session metadata. */
export function isMeta(v: unknown): v is SessionMeta {
  return isObject(v) && isString(v.id) && v.id !== "" && isString(v.created) &&
    isString(v.workspace) && isString(v.model);
}

/** A context checkpoint. */
export function isProjection(v: unknown): v is ProjectionRecord {
  return isObject(v) && isCount(v.generation) && isCount(v.summarizedUpTo) &&
    optional(v.summary, isString) && isCounts(v.pruned) &&
    optional(
      v.truncated,
      (t) => isObject(t) && isCounts(t.blanked) && isCount(t.droppedUpTo),
    );
}

/** A failed maintenance attempt. */
export function isFailure(v: unknown): v is MaintenanceFailure {
  return isObject(v) && isCount(v.generation) && typeof v.atTokens === "number" &&
    (v.status === "blocked" || v.status === "failed") && isString(v.reason);
}

/** The MCP tools a session offered. */
export function isOfferedTools(v: unknown): v is OfferedTool[] {
  return Array.isArray(v) &&
    v.every((t) =>
      isObject(t) && isString(t.name) && isString(t.description) && isObject(t.parameters) &&
      typeof t.readOnly === "boolean" && isString(t.server) && isString(t.tool)
    );
}

/** A reference into the session's raw file. */
export function isRawRef(v: unknown): v is RawRef {
  return isObject(v) && isCount(v.o) && isCount(v.n);
}

const GOAL_STATUSES = new Set(["active", "paused", "complete", "blocked"]);
const PAUSERS = new Set(["user", "model", "bound", "error"]);

/** A goal projection (`null` is a cleared goal). */
export function isGoalRecord(v: unknown): v is GoalRecord | null {
  return v === null ||
    (isObject(v) && isString(v.id) && v.id !== "" && isCount(v.revision) &&
      isString(v.objective) && GOAL_STATUSES.has(v.status as string) && isCount(v.rounds) &&
      isCount(v.tokens) && isCount(v.requests) && optional(v.reason, isString) &&
      optional(v.pausedBy, (p) => PAUSERS.has(p as string)) && isObject(v.since) &&
      isCount(v.since.rounds) && isCount(v.since.tokens));
}
