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

/** One line of a transcript. */
export type TranscriptRecord =
  | { t: "session"; v: number; meta: SessionMeta }
  /** A message; `m.rawContent` is written to the raw file and referenced by `raw`. */
  | { t: "msg"; i: number; m: Message; raw?: RawRef }
  | { t: "proj"; p: ProjectionRecord }
  | { t: "fail"; f: MaintenanceFailure }
  /** The MCP tools the session offers from here on; the last record wins. */
  | { t: "tools"; tools: OfferedTool[] };
