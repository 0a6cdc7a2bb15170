/**
 * Opening a session for a run: a new one, or a resumed one whose transcript is replayed and
 * repaired so the conversation is consistent (every tool call has a result).
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";
import type { Message } from "../../providers/types.ts";
import { Session } from "../agent/session.ts";
import { latestSession, locateSession } from "./sessions.ts";
import {
  type GoalRecord,
  type MaintenanceFailure,
  type OfferedTool,
  type ProjectionRecord,
  readTranscript,
  TRANSCRIPT_VERSION,
  transcriptPath,
  TranscriptWriter,
} from "./transcript.ts";

/** The result for a tool call whose process ended before it finished. */
export const INTERRUPTED_RESULT =
  "The session ended before this tool call finished; its effects, if any, are unknown. " +
  "Check the state before relying on it.";

/** A session ready to run, with its transcript open for appending. */
export interface OpenedSession {
  session: Session;
  writer: TranscriptWriter;
  /** The last installed checkpoint of a resumed session. */
  projection?: ProjectionRecord;
  failures: MaintenanceFailure[];
  /**
   * The MCP tools the session offered when it last ran; absent for a new session and for a
   * transcript written before tools were recorded.
   */
  tools?: OfferedTool[];
  /**
   * The goal a resumed session recorded last (Goal mode). Its activation is not recorded: the
   * caller restores it disarmed.
   */
  goal?: GoalRecord;
  resumed: boolean;
  /** Tool calls given an "interrupted" result on resume. */
  repaired: number;
  /** Transcript lines skipped on load (a torn last line after a crash). */
  skippedLines: number;
}

/** Session lookup failures, shown to the user with how to proceed. */
export class SessionNotFoundError extends ReasonixError {
  constructor(message: string) {
    super("session_not_found", message);
    this.name = "SessionNotFoundError";
  }
}

/** Tool calls without results, in order. */
function unanswered(messages: readonly Message[]): { id: string; name: string }[] {
  const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  return messages.flatMap((m) => m.toolCalls ?? []).filter((c) => !answered.has(c.id));
}

/**
 * Opens a session in `dir`: a new one, `resume: "latest"` for the most recent, or an id
 * (or unique id prefix). Every message appended to the returned session is written and
 * fsynced before `append` returns.
 */
export async function openSession(opts: {
  dir: string;
  workspace: string;
  model: string;
  resume?: string;
  now?: Date;
}): Promise<OpenedSession> {
  if (opts.resume === undefined) {
    const id = crypto.randomUUID();
    const writer = await TranscriptWriter.open(transcriptPath(opts.dir, id));
    writer.append({
      t: "session",
      v: TRANSCRIPT_VERSION,
      meta: {
        id,
        created: (opts.now ?? new Date()).toISOString(),
        workspace: opts.workspace,
        model: opts.model,
      },
    });
    const session = new Session(id);
    session.onAppend((m, i) => writer.append({ t: "msg", i, m }));
    return { session, writer, failures: [], resumed: false, repaired: 0, skippedLines: 0 };
  }

  let path: string;
  if (opts.resume === "latest") {
    // By modification time: only the chosen transcript is read.
    const latest = await latestSession(opts.dir);
    if (!latest) {
      throw new SessionNotFoundError(
        `no session to continue in ${opts.workspace}; start one without --continue`,
      );
    }
    path = latest;
  } else {
    if (opts.resume.trim() === "") {
      throw new SessionNotFoundError(
        "--resume needs a session id or id prefix; see `reasonix sessions list`",
      );
    }
    const found = await locateSession(opts.dir, opts.resume);
    if (found === "ambiguous") {
      throw new SessionNotFoundError(
        `session id prefix "${opts.resume}" matches several sessions; give more of the id ` +
          "(see `reasonix sessions list`)",
      );
    }
    if (!found) {
      throw new SessionNotFoundError(
        `no session "${opts.resume}" in ${opts.workspace}; see \`reasonix sessions list\``,
      );
    }
    path = found;
  }

  const writer = await TranscriptWriter.open(path);
  try {
    // With the raw file: `session:tool_result` pages through full results after a resume too.
    const loaded = await readTranscript(path, { raw: true });
    if (!loaded) throw new SessionNotFoundError(`${path} is not a Reasonix session transcript`);
    if (loaded.version > TRANSCRIPT_VERSION) {
      // Appending older records to a newer format could make it unreadable to that version.
      throw new SessionNotFoundError(
        `session ${loaded.meta.id} was written by a newer Reasonix (transcript format ` +
          `v${loaded.version}, this one writes v${TRANSCRIPT_VERSION}); update Reasonix to ` +
          "continue it, or start a new session",
      );
    }
    const session = new Session(loaded.meta.id, loaded.messages);
    session.onAppend((m, i) => writer.append({ t: "msg", i, m }));
    const open = unanswered(loaded.messages);
    for (const call of open) {
      session.append({
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: INTERRUPTED_RESULT,
        isError: true,
      });
    }
    return {
      session,
      writer,
      projection: loaded.projection,
      failures: loaded.failures,
      ...(loaded.tools ? { tools: loaded.tools } : {}),
      ...(loaded.goal ? { goal: loaded.goal } : {}),
      resumed: true,
      repaired: open.length,
      skippedLines: loaded.skippedLines,
    };
  } catch (error) {
    writer.close();
    throw error;
  }
}
