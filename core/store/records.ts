/**
 * The record shapes of a transcript file, kept apart from the reader and writer so the shape
 * checks and the context manager can name them without importing the file I/O.
 *
 * @module
 */
import type { JsonSchema, Message } from "../../providers/types.ts";

/** Record format version. */
export const TRANSCRIPT_VERSION = 1;

/** Session metadata, the first record of every transcript. */
export interface SessionMeta {
  id: string;
  /** ISO time of creation. */
  created: string;
  /** Canonical workspace root. */
  workspace: string;
  /** `provider/model` at creation. */
  model: string;
}

/** What a context checkpoint installs over the canonical messages (spec §3.6). */
export interface ProjectionRecord {
  /**
   * Increases with every installed summary. Prunes and truncations keep it, so the failure
   * receipts of a generation survive them. Never shown to the model.
   */
  generation: number;
  /** Canonical messages `[0, summarizedUpTo)` are replaced by `summary`. */
  summarizedUpTo: number;
  summary?: string;
  /** Canonical indices of tool results shown pruned (head + marker + tail). */
  pruned: number[];
  /** Lossy `truncate` projection: tool results blanked and replay units dropped. */
  truncated?: { blanked: number[]; droppedUpTo: number };
}

/** A failed automatic maintenance attempt, recorded so the same generation never pays twice. */
export interface MaintenanceFailure {
  generation: number;
  /** Estimated view size when the attempt was made. */
  atTokens: number;
  status: "blocked" | "failed";
  reason: string;
}

/**
 * An MCP tool exactly as a session offered it to the model. A resumed session (and a new agent
 * on it, `/model`) offers these bytes again, whatever the server lists now, so the tool block of
 * the cached prompt prefix does not change and the history never names a tool that is gone.
 */
export interface OfferedTool {
  /** The name the model sees, `mcp__<server>__<tool>`. */
  name: string;
  description: string;
  /** The canonical JSON schema sent as the tool's parameters. */
  parameters: JsonSchema;
  readOnly: boolean;
  /** The MCP server that offered it. */
  server: string;
  /** The tool's own name on that server. */
  tool: string;
}

/**
 * Where a tool message's raw content (`Message.rawContent`) is: `n` UTF-8 bytes from byte `o`
 * of the session's raw file (`<id>.raw` beside `<id>.jsonl`). Raw text stays out of the
 * transcript so listing, searching and resuming sessions read only what the model saw.
 */
export interface RawRef {
  o: number;
  n: number;
}

/** Where a goal is: `active` (the driver may admit rounds), or stopped in one of three ways. */
export type GoalStatus = "active" | "paused" | "complete" | "blocked";

/**
 * A goal as the session's `goal` projection records it (Goal mode, spec §3.7). Activation
 * (whether the driver may run it in this process) is never recorded.
 */
export interface GoalRecord {
  /** Stable for the goal's life. */
  id: string;
  /** Increases with every change of objective or status; updates must name the current one. */
  revision: number;
  /** What done means, in the user's or the model's words. */
  objective: string;
  /** Where the goal is. */
  status: GoalStatus;
  /** Rounds the goal driver admitted. */
  rounds: number;
  /** Prompt + completion tokens of those rounds. */
  tokens: number;
  /** Real provider requests of those rounds. */
  requests: number;
  /** Why it is paused, blocked or complete, in words. */
  reason?: string;
  /** Who paused it: the user, the model, a bound or an error. */
  pausedBy?: "user" | "model" | "bound" | "error";
  /** `rounds` and `tokens` when it was last made active: the bounds count from here. */
  since: { rounds: number; tokens: number };
}

/** One line of a transcript. */
export type TranscriptRecord =
  | { t: "session"; v: number; meta: SessionMeta }
  /** A message; `m.rawContent` is written to the raw file and referenced by `raw`. */
  | { t: "msg"; i: number; m: Message; raw?: RawRef }
  | { t: "proj"; p: ProjectionRecord }
  | { t: "fail"; f: MaintenanceFailure }
  /** The MCP tools the session offers from here on; the last record wins. */
  | { t: "tools"; tools: OfferedTool[] }
  /** The session's goal from here on (`null`: cleared); the last record wins. */
  | { t: "goal"; g: GoalRecord | null }
  /**
   * An incomplete turn was rolled back: messages from index `to` on are void, with the
   * projection and failures recorded after them (a failed planner turn).
   */
  | { t: "rollback"; to: number }
  /** How a user turn was routed (spec §3.5); never the user's text. */
  | { t: "route"; route: string; reason: string; plan?: string }
  /** A plan and where it stands; the last record of a plan id wins. */
  | { t: "plan"; id: string; status: PlanStatus; plan: unknown };

/** Where a submitted plan stands: waiting for approval, approved, rejected or saved only. */
export type PlanStatus = "pending" | "approved" | "rejected" | "saved";
