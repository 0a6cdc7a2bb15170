/**
 * The canonical transcript: append-only JSONL, one record per line, flushed and fsynced per
 * record. A crash can only tear the last line, and a torn line is skipped on load, never the
 * whole file. The file is locked while a process appends to it.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { Message } from "../../providers/types.ts";
import { ReasonixError } from "../../errors.ts";
import { isFailure, isMessage, isMeta, isProjection } from "./record_shape.ts";
import {
  type MaintenanceFailure,
  type ProjectionRecord,
  type SessionMeta,
  TRANSCRIPT_VERSION,
  type TranscriptRecord,
} from "./records.ts";

export {
  type MaintenanceFailure,
  type ProjectionRecord,
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

/** Parses a transcript's text. Unparseable lines are skipped and counted. */
export function parseTranscript(text: string): LoadedTranscript | undefined {
  let meta: SessionMeta | undefined;
  const messages: Message[] = [];
  let projection: ProjectionRecord | undefined;
  const failures: MaintenanceFailure[] = [];
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
        if (record.i === messages.length && isMessage(record.m)) messages.push(record.m);
        else skippedLines++;
        break;
      case "proj":
        if (isProjection(record.p)) projection = record.p;
        else skippedLines++;
        break;
      case "fail":
        if (isFailure(record.f)) failures.push(record.f);
        else skippedLines++;
        break;
      default:
        skippedLines++;
    }
  }
  return meta ? { meta, version, messages, projection, failures, skippedLines } : undefined;
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
   * is thrown; the next append writes the waiting records first, in order.
   */
  append(record: TranscriptRecord): void {
    if (this.#closed) throw new TranscriptError("transcript_write", `${this.path} is closed`);
    this.#pending.push(encoder.encode(JSON.stringify(record) + "\n"));
    this.#flush();
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

/** Reads and parses a transcript file. */
export async function readTranscript(path: string): Promise<LoadedTranscript | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
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
  return parseTranscript(text);
}

/** The transcript path of a session. */
export function transcriptPath(sessionsDir: string, id: string): string {
  return join(sessionsDir, `${id}.jsonl`);
}
