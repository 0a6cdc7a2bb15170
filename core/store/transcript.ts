/**
 * The canonical transcript: append-only JSONL, one record per line, flushed and fsynced per
 * record. A crash can only tear the last line, and a torn line is skipped on load, never the
 * whole file. The file is locked while a process appends to it.
 *
 * Raw tool content (`Message.rawContent`, up to 4 MiB per result) goes to a second
 * append-only file beside it, `<id>.raw`, written and fsynced before the message record that
 * points at it; bytes a crash left without a record are never referenced. Only resuming the
 * session reads it back.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { Message } from "../../providers/types.ts";
import { ReasonixError } from "../../errors.ts";
import {
  isFailure,
  isGoalRecord,
  isMessage,
  isMeta,
  isOfferedTools,
  isProjection,
  isRawRef,
} from "./record_shape.ts";
import {
  type GoalRecord,
  type MaintenanceFailure,
  type OfferedTool,
  type PlanStatus,
  type ProjectionRecord,
  type RawRef,
  type SessionMeta,
  TRANSCRIPT_VERSION,
  type TranscriptRecord,
} from "./records.ts";

export {
  type GoalRecord,
  type GoalStatus,
  type MaintenanceFailure,
  type OfferedTool,
  type ProjectionRecord,
  type RawRef,
  type SessionMeta,
  TRANSCRIPT_VERSION,
  type TranscriptRecord,
} from "./records.ts";

/** The state a transcript file restores. */
export interface LoadedTranscript {
  meta: SessionMeta;
  /** The record format version the transcript was started with. */
  version: number;
  messages: Message[];
  projection?: ProjectionRecord;
  failures: MaintenanceFailure[];
  /** The MCP tools the session last offered; absent in transcripts older than the record. */
  tools?: OfferedTool[];
  /** The session's goal, from its last `goal` record; absent when it never had one or cleared it. */
  goal?: GoalRecord;
  /** The session's last plan record (Coordinator handoffs); the plan body is unchecked. */
  plan?: { id: string; status: PlanStatus; plan: unknown };
  /** Lines that could not be parsed (a torn last line, or damage). */
  skippedLines: number;
}

/** Transcript I/O failures. */
export class TranscriptError extends ReasonixError {
  constructor(
    code: "transcript_locked" | "transcript_write" | "transcript_read",
    message: string,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = "TranscriptError";
  }
}

const encoder = new TextEncoder();
const PLAN_STATUSES: readonly string[] = ["pending", "approved", "rejected", "saved"];

/** The raw-content file of the transcript at `path`: `<id>.raw` beside `<id>.jsonl`. */
export function rawPath(path: string): string {
  return path.replace(/\.jsonl$/, "") + ".raw";
}

/**
 * Parses a transcript's text. Unparseable lines are skipped and counted. With `raw` (the
 * bytes of the session's raw file), tool messages get their `rawContent` back; a reference
 * past its end (the file was lost or cut) leaves the message without it.
 */
export function parseTranscript(
  text: string,
  raw?: Uint8Array,
): LoadedTranscript | undefined {
  const decoder = new TextDecoder();
  let meta: SessionMeta | undefined;
  const messages: Message[] = [];
  let tools: OfferedTool[] | undefined;
  let goal: GoalRecord | null = null;
  // Projections and failures with the message count they were recorded at, for rollbacks.
  const projections: { at: number; p: ProjectionRecord }[] = [];
  const failed: { at: number; f: MaintenanceFailure }[] = [];
  let plan: { id: string; status: PlanStatus; plan: unknown } | undefined;
  let skippedLines = 0;
  let version = TRANSCRIPT_VERSION;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let record: TranscriptRecord;
    try {
      record = JSON.parse(line);
    } catch {
      skippedLines++;
      continue;
    }
    switch (record?.t) {
      case "session":
        if (!isMeta(record.meta) || !Number.isInteger(record.v)) skippedLines++;
        else if (!meta) [meta, version] = [record.meta, record.v];
        break;
      case "msg":
        // Indices make a duplicated or reordered line harmless.
        if (record.i === messages.length && isMessage(record.m)) {
          const ref: unknown = record.raw;
          if (raw && isRawRef(ref) && ref.o + ref.n <= raw.length) {
            const rawContent = decoder.decode(raw.subarray(ref.o, ref.o + ref.n));
            messages.push({ ...record.m, rawContent });
          } else messages.push(record.m);
        } else skippedLines++;
        break;
      case "proj":
        if (isProjection(record.p)) projections.push({ at: messages.length, p: record.p });
        else skippedLines++;
        break;
      case "fail":
        if (isFailure(record.f)) failed.push({ at: messages.length, f: record.f });
        else skippedLines++;
        break;
      case "rollback":
        if (Number.isInteger(record.to) && record.to >= 0 && record.to <= messages.length) {
          messages.length = record.to;
          while ((projections.at(-1)?.at ?? 0) > record.to) projections.pop();
          while ((failed.at(-1)?.at ?? 0) > record.to) failed.pop();
        } else skippedLines++;
        break;
      case "route":
        // Recorded for audit and `--json`; nothing to restore.
        break;
      case "plan":
        if (typeof record.id === "string" && PLAN_STATUSES.includes(record.status)) {
          plan = { id: record.id, status: record.status, plan: record.plan };
        } else skippedLines++;
        break;
      case "tools":
        if (isOfferedTools(record.tools)) tools = record.tools;
        else skippedLines++;
        break;
      case "goal":
        if (isGoalRecord(record.g)) goal = record.g;
        else skippedLines++;
        break;
      default:
        skippedLines++;
    }
  }
  const projection = projections.at(-1)?.p;
  const failures = failed.map((entry) => entry.f);
  return meta
    ? {
      meta,
      version,
      messages,
      projection,
      failures,
      ...(plan ? { plan } : {}),
      ...(tools ? { tools } : {}),
      ...(goal ? { goal } : {}),
      skippedLines,
    }
    : undefined;
}

/** An open, locked transcript being appended to. */
export class TranscriptWriter {
  readonly path: string;
  readonly #file: Deno.FsFile;
  #closed = false;
  /** Bytes of whole records in the file. */
  #size: number;
  /** Records not yet written (the disk refused them), oldest first. */
  readonly #pending: Uint8Array[] = [];
  /** The raw-content file, opened at the first raw content. */
  #raw: Deno.FsFile | undefined;
  /** Bytes in the raw file; a record only points below this. */
  #rawSize = 0;

  private constructor(path: string, file: Deno.FsFile, size: number) {
    this.path = path;
    this.#file = file;
    this.#size = size;
  }

  /**
   * Opens (creating if needed) and locks a transcript for appending. Throws
   * `TranscriptError("transcript_locked")` when a live process holds it.
   */
  static async open(path: string): Promise<TranscriptWriter> {
    try {
      await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new TranscriptError(
        "transcript_write",
        `cannot create the sessions folder ${dirname(path)}: ${(error as Error).message}. ` +
          "Something that is not a folder is in the way (see REASONIX_HOME); move it aside",
        { cause: error },
      );
    }
    await acquireLock(path);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
    } catch (error) {
      await Deno.remove(lockPath(path)).catch(() => {});
      throw new TranscriptError(
        "transcript_write",
        `could not open ${path}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    // A crash may have left a torn last line; end it so the next record starts clean.
    const stat = await file.stat();
    const writer = new TranscriptWriter(path, file, stat.size);
    if (stat.size > 0) {
      const tail = new Uint8Array(1);
      const reader = await Deno.open(path, { read: true });
      try {
        await reader.seek(stat.size - 1, Deno.SeekMode.Start);
        await reader.read(tail);
      } finally {
        reader.close();
      }
      if (tail[0] !== 0x0a) {
        writer.#pending.push(encoder.encode("\n"));
        try {
          writer.#flush();
        } catch (error) {
          writer.close();
          throw error;
        }
      }
    }
    return writer;
  }

  /** Records the disk has refused so far; they are written first by the next append. */
  get pendingRecords(): number {
    return this.#pending.length;
  }

  /**
   * Appends one record durably (written and fsynced before returning). When the disk refuses
   * it (full, read-only, I/O error), a partly written line is cut away so the file still ends
   * with a whole record, the record waits in memory, and `TranscriptError("transcript_write")`
   * is thrown; the next append writes the waiting records first, in order. A message's
   * `rawContent` is written to the raw file first and the record points at it.
   */
  append(record: TranscriptRecord): void {
    if (this.#closed) throw new TranscriptError("transcript_write", `${this.path} is closed`);
    if (record.t === "msg" && record.m.rawContent !== undefined) {
      const { rawContent, ...m } = record.m;
      const ref = this.#writeRaw(rawContent);
      record = { t: "msg", i: record.i, m, ...(ref ? { raw: ref } : {}) };
    }
    this.#pending.push(encoder.encode(JSON.stringify(record) + "\n"));
    this.#flush();
  }

  /**
   * Appends raw content to the raw file, durably, and returns where it is. When the disk
   * refuses it, the file is cut back and undefined is returned: the message is still
   * recorded (raw content is a local extra), only paging after a resume stops at its
   * bounded content.
   */
  #writeRaw(text: string): RawRef | undefined {
    const bytes = encoder.encode(text);
    try {
      if (!this.#raw) {
        const file = Deno.openSync(rawPath(this.path), {
          read: true,
          write: true,
          create: true,
          mode: 0o600,
        });
        // Bytes a crash left past the last record are unreferenced: append after them.
        this.#rawSize = file.seekSync(0, Deno.SeekMode.End);
        this.#raw = file;
      }
      const file = this.#raw;
      file.seekSync(this.#rawSize, Deno.SeekMode.Start);
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      file.syncDataSync();
    } catch {
      try {
        this.#raw?.truncateSync(this.#rawSize);
      } catch {
        // Left longer: the extra bytes are never referenced.
      }
      return undefined;
    }
    const ref = { o: this.#rawSize, n: bytes.length };
    this.#rawSize += bytes.length;
    return ref;
  }

  #flush(): void {
    while (this.#pending.length > 0) {
      const bytes = this.#pending[0];
      try {
        let written = 0;
        while (written < bytes.length) written += this.#file.writeSync(bytes.subarray(written));
        this.#file.syncDataSync();
      } catch (error) {
        try {
          this.#file.truncateSync(this.#size);
        } catch {
          // Left torn: loading skips the line and the next open ends it.
        }
        throw new TranscriptError(
          "transcript_write",
          `could not write the session transcript ${this.path}: ${(error as Error).message}. ` +
            "The session is saved up to its last whole record; free some space and " +
            "`reasonix --continue` picks it up from there",
          { cause: error },
        );
      }
      this.#size += bytes.length;
      this.#pending.shift();
    }
  }

  /** Releases the lock and closes the file. */
  close(): void {
    if (this.#closed) return;
    try {
      this.#flush();
    } catch {
      // Still refused: the caller was told when the record was first refused.
    }
    this.#closed = true;
    this.#file.close();
    this.#raw?.close();
    try {
      Deno.removeSync(lockPath(this.path));
    } catch {
      // already gone: nothing to release
    }
  }
}

function lockPath(path: string): string {
  return `${path}.lock`;
}

/** Whether a process with this id is alive (a lock of a dead process is stale). */
async function processAlive(pid: number): Promise<boolean> {
  if (pid === Deno.pid) return true;
  try {
    const out = Deno.build.os === "windows"
      ? await new Deno.Command("tasklist", {
        args: ["/FI", `PID eq ${pid}`, "/NH"],
        stdout: "piped",
        stderr: "null",
      }).output()
      : await new Deno.Command("kill", {
        args: ["-0", String(pid)],
        stdout: "null",
        stderr: "null",
      })
        .output();
    if (Deno.build.os === "windows") {
      return new TextDecoder().decode(out.stdout).includes(String(pid));
    }
    return out.success;
  } catch {
    return true; // cannot tell: never steal a lock that may be live
  }
}

/**
 * Takes the session's lock file (created exclusively, holding our pid). A lock left by a
 * process that no longer exists is stale and taken over; a live one is refused.
 */
async function acquireLock(path: string): Promise<void> {
  const lock = lockPath(path);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await Deno.writeTextFile(lock, String(Deno.pid), { createNew: true, mode: 0o600 });
      return;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) {
        throw new TranscriptError(
          "transcript_write",
          `cannot lock the session transcript ${path}: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    const holder = Number((await Deno.readTextFile(lock).catch(() => "")).trim());
    if (Number.isInteger(holder) && holder > 0 && await processAlive(holder)) {
      throw new TranscriptError(
        "transcript_locked",
        `session file ${path} is in use by another reasonix process (pid ${holder}); ` +
          "wait for it to finish or start a new session",
      );
    }
    await Deno.remove(lock).catch(() => {});
  }
  throw new TranscriptError("transcript_locked", `could not lock ${path}; try again`);
}

/**
 * Reads and parses a transcript file; with `raw`, also the session's raw file, so tool
 * messages carry their `rawContent` (resuming needs it; listing and searching do not).
 */
export async function readTranscript(
  path: string,
  opts: { raw?: boolean } = {},
): Promise<LoadedTranscript | undefined> {
  let text: string;
  let raw: Uint8Array | undefined;
  try {
    text = await Deno.readTextFile(path);
    if (opts.raw) {
      raw = await Deno.readFile(rawPath(path)).catch((error) => {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      });
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new TranscriptError(
      "transcript_read",
      `could not read ${path}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return parseTranscript(text, raw);
}

/** The transcript path of a session. */
export function transcriptPath(sessionsDir: string, id: string): string {
  return join(sessionsDir, `${id}.jsonl`);
}
