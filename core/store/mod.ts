/**
 * Sessions on disk: append-only, fsynced JSONL transcripts, their lock, and finding and
 * resuming sessions of a workspace.
 *
 * @module
 */
export * from "./transcript.ts";
export {
  findSession,
  latestSession,
  listSessions,
  locateSession,
  projectKey,
  sessionsDir,
  type SessionSummary,
  type TranscriptFile,
  transcriptFiles,
  userText,
} from "./sessions.ts";
export {
  INTERRUPTED_RESULT,
  type OpenedSession,
  openSession,
  SessionNotFoundError,
} from "./session_store.ts";
export { indexDir, SESSION_INDEX_VERSION } from "./session_index.ts";
export { LearnedLimits, limitKey, LIMITS_FORMAT_VERSION } from "./learned_limits.ts";
