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
 * @module
 */

/** The built-in engine skips files larger than this. */
export const MAX_BUILTIN_FILE_BYTES = 64 * 1024 * 1024;
/** Longest time one file may take before the search stops with an error. */
export const BUILTIN_FILE_BUDGET_MS = 10_000;
/** Files queued in the worker ahead of the one being matched. */
const WINDOW = 32;

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
let queue = Promise.resolve();

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

async function matchFile(path, maxHits) {
  let bytes;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > options.maxBytes) return { kind: "skipped" };
    bytes = await Deno.readFile(path);
  } catch (error) {
    return { kind: "unreadable", error: error && error.message ? error.message : String(error) };
  }
  const text = decode(bytes);
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
  queue = queue.then(async () => {
    const result = await matchFile(message.path, message.maxHits);
    self.postMessage({ id: message.id, result });
  });
};
`;

const WORKER_URL = `data:text/javascript;base64,${
  btoa(String.fromCharCode(...new TextEncoder().encode(WORKER_SOURCE)))
}`;

interface Pending {
  id: number;
  path: string;
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
  #nextId = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failure: unknown;

  constructor(opts: LineMatcherOptions) {
    this.#budgetMs = opts.budgetMs ?? BUILTIN_FILE_BUDGET_MS;
    this.#signal = opts.signal;
    this.#worker = new Worker(WORKER_URL, { type: "module" });
    this.#worker.onmessage = (event: MessageEvent<{ id: number; result: FileMatch }>) => {
      const head = this.#pending.shift();
      if (!head || head.id !== event.data.id) {
        this.#fail(new Error("the search worker answered out of order"));
        return;
      }
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
      maxBytes: MAX_BUILTIN_FILE_BYTES,
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
      const id = this.#nextId++;
      this.#pending.push({ id, path, resolve, reject });
      this.#worker.postMessage({ type: "file", id, path, maxHits });
      if (this.#pending.length === 1) this.#arm();
    });
    // Callers may stop awaiting after a failure; the rejection is theirs to observe or not.
    promise.catch(() => {});
    return promise;
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
