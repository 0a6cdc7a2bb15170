/**
 * Line matching for the built-in `grep` engine, run in a worker. JavaScript regular
 * expressions backtrack: a pattern like `(a+)+$` or `.*a.*b` on a long line can run for
 * minutes, and in the main thread that would freeze the whole session, cancellation
 * included. In a worker the session stays responsive, a cancelled or over-budget search
 * returns at once, and the worker is discarded.
 *
 * V8 cannot interrupt a running regular expression, so a discarded worker's thread keeps
 * running until that one match finishes (or the process exits); the budget turns this into
 * an error the model can act on instead of a hang.
 *
 * The files are read here, through the call's workspace, and their bytes moved (not copied)
 * to the worker: the worker only matches, so it needs no file access of its own and works the
 * same over a remote workspace. Reading runs ahead of matching by at most
 * {@linkcode MAX_INFLIGHT_BYTES}.
 *
 * @module
 */
import type { Workspace } from "../workspace/types.ts";

/** The built-in engine skips files larger than this. */
export const MAX_BUILTIN_FILE_BYTES = 64 * 1024 * 1024;
/** Longest time one file may take before the search stops with an error. */
export const BUILTIN_FILE_BUDGET_MS = 10_000;
/** Files queued in the worker ahead of the one being matched. */
const WINDOW = 32;
/** Bytes read ahead of the matching at most (one file bigger than this still goes). */
export const MAX_INFLIGHT_BYTES = 32 * 1024 * 1024;

/** One line of a content-mode result. */
export interface LineHit {
  line: number;
  text: string;
  /** True for a matching line, false for a context line. */
  match: boolean;
}

/** What to compute per file. */
export type MatchMode = "content" | "files_with_matches" | "count";

/** Outcome for one file. */
export type FileMatch =
  | { kind: "skipped" }
  | { kind: "unreadable"; error: string }
  | { kind: "matched"; matched: boolean }
  | { kind: "count"; count: number }
  | { kind: "hits"; hits: LineHit[] };

/** Thrown when one file takes longer than the budget. */
export class MatchBudgetError extends Error {
  constructor(readonly path: string, readonly budgetMs: number) {
    super(`matching ${path} took longer than ${budgetMs / 1000}s`);
    this.name = "MatchBudgetError";
  }
}

/** Options of {@linkcode LineMatcher}. */
export interface LineMatcherOptions {
  /** Where the files are read. */
  workspace: Workspace;
  /** Source and flags of an already validated `RegExp`. */
  source: string;
  flags: string;
  mode: MatchMode;
  /** Context lines around matches (content mode). */
  context: number;
  signal: AbortSignal;
  /** Default {@linkcode BUILTIN_FILE_BUDGET_MS}. */
  budgetMs?: number;
}

/**
 * The worker's code, self-contained (no imports) so it loads from a `data:` URL and survives
 * bundling. Files are handled one at a time, in order.
 */
const WORKER_SOURCE = `
let options;
let regex;

function decode(bytes) {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  if (bytes.includes(0)) return undefined;
  return new TextDecoder().decode(bytes);
}

function splitLines(text) {
  const lines = text.split("\\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => line.endsWith("\\r") ? line.slice(0, -1) : line);
}

function hitsOf(lines, maxHits) {
  const matches = [];
  for (let i = 0; i < lines.length && matches.length < maxHits; i++) {
    if (regex.test(lines[i])) matches.push(i);
  }
  if (matches.length === 0) return [];
  const matched = new Set(matches);
  const shown = new Set(matches);
  const context = options.context;
  if (context > 0) {
    for (const i of matches) {
      const last = Math.min(lines.length - 1, i + context);
      for (let j = Math.max(0, i - context); j <= last; j++) shown.add(j);
    }
  }
  return [...shown].sort((a, b) => a - b).map((i) => ({
    line: i + 1,
    text: lines[i],
    match: matched.has(i),
  }));
}

function matchFile(message, maxHits) {
  if (message.skip) return { kind: "skipped" };
  if (message.error !== undefined) return { kind: "unreadable", error: message.error };
  const text = decode(message.bytes);
  if (text === undefined) return { kind: "skipped" };
  const lines = splitLines(text);
  if (options.mode === "files_with_matches") {
    return { kind: "matched", matched: lines.some((line) => regex.test(line)) };
  }
  if (options.mode === "count") {
    let count = 0;
    for (const line of lines) if (regex.test(line)) count++;
    return { kind: "count", count };
  }
  return { kind: "hits", hits: hitsOf(lines, maxHits) };
}

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "init") {
    options = message;
    regex = new RegExp(message.source, message.flags);
    return;
  }
  self.postMessage({ id: message.id, result: matchFile(message, message.maxHits) });
};
`;

const WORKER_URL = `data:text/javascript;base64,${
  btoa(String.fromCharCode(...new TextEncoder().encode(WORKER_SOURCE)))
}`;

interface Pending {
  id: number;
  path: string;
  /** Bytes handed to the worker for it, until it answers. */
  bytes: number;
  resolve(result: FileMatch): void;
  reject(error: unknown): void;
}

/**
 * Matches files line by line in a worker, in submission order. Any failure (cancellation,
 * the budget, a worker error) rejects every pending file and discards the worker.
 */
export class LineMatcher implements Disposable {
  readonly #worker: Worker;
  readonly #budgetMs: number;
  readonly #pending: Pending[] = [];
  readonly #signal: AbortSignal;
  readonly #onAbort: () => void;
  readonly #ws: Workspace;
  /** Files reach the worker in submission order, whichever read finishes first. */
  #posting: Promise<void> = Promise.resolve();
  /** Bytes reserved by reads that have not been answered yet. */
  #inflight = 0;
  #waiting: (() => void)[] = [];
  #nextId = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failure: unknown;

  constructor(opts: LineMatcherOptions) {
    this.#budgetMs = opts.budgetMs ?? BUILTIN_FILE_BUDGET_MS;
    this.#signal = opts.signal;
    this.#ws = opts.workspace;
    this.#worker = new Worker(WORKER_URL, { type: "module" });
    this.#worker.onmessage = (event: MessageEvent<{ id: number; result: FileMatch }>) => {
      const head = this.#pending.shift();
      if (!head || head.id !== event.data.id) {
        this.#fail(new Error("the search worker answered out of order"));
        return;
      }
      this.#inflight -= head.bytes;
      this.#wake();
      head.resolve(event.data.result);
      this.#arm();
    };
    this.#worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#fail(new Error(`the search worker failed: ${event.message}`));
    };
    this.#worker.postMessage({
      type: "init",
      source: opts.source,
      flags: opts.flags,
      mode: opts.mode,
      context: opts.context,
    });
    this.#onAbort = () => this.#fail(this.#signal.reason);
    this.#signal.addEventListener("abort", this.#onAbort, { once: true });
    if (this.#signal.aborted) this.#fail(this.#signal.reason);
  }

  /** Whether another file can be submitted without waiting (the queue is not full). */
  get ready(): boolean {
    return this.#pending.length < WINDOW;
  }

  /** Queues `path`; content mode returns at most `maxHits` matching lines. */
  match(path: string, maxHits: number): Promise<FileMatch> {
    const promise = new Promise<FileMatch>((resolve, reject) => {
      if (this.#failure !== undefined) {
        reject(this.#failure);
        return;
      }
      const entry: Pending = { id: this.#nextId++, path, bytes: 0, resolve, reject };
      this.#pending.push(entry);
      if (this.#pending.length === 1) this.#arm();
      // Reads overlap (a remote workspace answers each after a round trip); posting waits
      // for the earlier files, so the worker's answers stay in order.
      const loaded = this.#read(entry, maxHits);
      this.#posting = this.#posting.then(async () => {
        const { message, transfer } = await loaded;
        if (this.#failure === undefined) this.#worker.postMessage(message, transfer);
      }).catch((error) => this.#fail(error));
    });
    // Callers may stop awaiting after a failure; the rejection is theirs to observe or not.
    promise.catch(() => {});
    return promise;
  }

  /**
   * Reads one file for the worker; a failed read is the file's result. Its size is reserved
   * before the read, so at most {@linkcode MAX_INFLIGHT_BYTES} are held at once (one file
   * alone may be bigger).
   */
  async #read(
    entry: Pending,
    maxHits: number,
  ): Promise<{ message: Record<string, unknown>; transfer: ArrayBuffer[] }> {
    const on = { signal: this.#signal };
    try {
      const info = await this.#ws.stat(entry.path, on);
      if (!info.isFile || info.size > MAX_BUILTIN_FILE_BYTES) {
        return { message: { type: "file", id: entry.id, maxHits, skip: true }, transfer: [] };
      }
      while (
        this.#inflight > 0 && this.#inflight + info.size > MAX_INFLIGHT_BYTES &&
        this.#failure === undefined
      ) {
        await new Promise<void>((resolve) => this.#waiting.push(resolve));
      }
      entry.bytes = info.size;
      this.#inflight += info.size;
      let bytes = await this.#ws.readFile(entry.path, on);
      // Only a buffer of its own can be moved; a view into a shared or pooled one is copied.
      if (
        !(bytes.buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 ||
        bytes.byteLength !== bytes.buffer.byteLength
      ) bytes = bytes.slice();
      return {
        message: { type: "file", id: entry.id, maxHits, bytes },
        transfer: [bytes.buffer as ArrayBuffer],
      };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { message: { type: "file", id: entry.id, maxHits, error: reason }, transfer: [] };
    }
  }

  #wake(): void {
    for (const wake of this.#waiting.splice(0)) wake();
  }

  /** Restarts the budget for the file now at the head of the queue. */
  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const head = this.#pending[0];
    if (!head) return;
    this.#timer = setTimeout(() => {
      this.#fail(new MatchBudgetError(head.path, this.#budgetMs));
    }, this.#budgetMs);
  }

  #fail(error: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#close();
    this.#wake();
    for (const pending of this.#pending.splice(0)) pending.reject(error);
  }

  #close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#signal.removeEventListener("abort", this.#onAbort);
    this.#worker.terminate();
  }

  /** Discards the worker; pending files are rejected. */
  [Symbol.dispose](): void {
    this.#fail(new Error("the search was closed"));
  }
}
