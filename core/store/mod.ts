/**
 * Sessions on disk: append-only, fsynced JSONL transcripts, their lock, and finding and
 * resuming sessions of a workspace.
 *
 * @module
 */
export * from "./transcript.ts";
export {
  findSession,
  listSessions,
  projectKey,
  sessionsDir,
  type SessionSummary,
  userText,
} from "./sessions.ts";
export {
  INTERRUPTED_RESULT,
  type OpenedSession,
  openSession,
  SessionNotFoundError,
} from "./session_store.ts";
export { LearnedLimits, limitKey } from "./learned_limits.ts";
