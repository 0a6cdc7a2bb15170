/**
 * The record shapes of a transcript file, kept apart from the reader and writer so the shape
 * checks and the context manager can name them without importing the file I/O.
 *
 * @module
 */
import type { Message } from "../../providers/types.ts";

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
  /** Increases with every installed checkpoint. */
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

/** One line of a transcript. */
export type TranscriptRecord =
  | { t: "session"; v: number; meta: SessionMeta }
  | { t: "msg"; i: number; m: Message }
  | { t: "proj"; p: ProjectionRecord }
  | { t: "fail"; f: MaintenanceFailure };
