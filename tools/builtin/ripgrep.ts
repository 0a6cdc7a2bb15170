/**
 * Engine choice for `glob` and `grep` (ripgrep when installed, the built-in walker otherwise)
 * and a streaming ripgrep runner.
 *
 * @module
 */
import { findTrustedProgram } from "../shell.ts";
import type { Workspace, WorkspaceProcess } from "../workspace/types.ts";

/** Which implementation answers a search. */
export type SearchEngine = "ripgrep" | "builtin";

/** Options of the search tools' run functions. */
export interface SearchOptions {
  /**
   * Forces an engine. Default: ripgrep when `rg` is on `PATH`, the built-in walker otherwise.
   * Forcing `ripgrep` without `rg` installed falls back to the built-in walker.
   */
  engine?: SearchEngine;
  /** Built-in `grep` only: how long one file may take. Default 10 s. */
  fileBudgetMs?: number;
}

/**
 * Throws (e.g. `PermissionDenied`) unless directory `dir` can be listed and entered, so a
 * search of an unreadable directory is an error instead of an empty result.
 */
export async function checkSearchDir(ws: Workspace, dir: string): Promise<void> {
  for await (const _ of ws.readDir(dir)) break;
  await ws.stat(`${dir}/.`);
}

/** The reason in a file-system error message, without the `(os error N): op 'path'` tail. */
export function errorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/ \(os error \d+\)(: .*)?$/s, "");
}

/**
 * A note for results that skipped unreadable paths (`problems` holds one `path: error` line
 * each), or undefined when there were none.
 */
export function unreadableNote(problems: string[]): string | undefined {
  if (problems.length === 0) return undefined;
  const shown = problems.slice(0, 3).map((p) => p.replace(/^rg: /, "").slice(0, 300));
  const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : "";
  return `[${problems.length === 1 ? "a path" : "some paths"} could not be read, so results ` +
    `may be incomplete: ${shown.join("; ")}${more}]`;
}

/**
 * A note for listings that left out `n` entries the read rules deny (`[permissions].deny` or
 * `ask` path rules, `[sandbox].forbid_read`). It counts names only, never depends on content.
 */
export function hiddenNote(n: number, noun: "file" | "entry"): string {
  const plural = noun === "file" ? "files" : "entries";
  return `[${n} ${n === 1 ? noun : plural} hidden by read rules ([permissions].deny or ask ` +
    `path rules, [sandbox].forbid_read)]`;
}

/** A resolved engine. */
export type ResolvedEngine = { kind: "ripgrep"; rg: string } | { kind: "builtin" };

/** Picks the engine for one call in `ws`. */
export async function resolveEngine(
  ws: Workspace,
  engine?: SearchEngine,
  untrusted: readonly string[] = [],
): Promise<ResolvedEngine> {
  if (engine === "builtin") return { kind: "builtin" };
  // rg runs unsandboxed, so a copy planted in the workspace must never be the one found.
  const rg = await findTrustedProgram("rg", { workspace: ws, untrusted });
  if (!rg) return { kind: "builtin" };
  // A run that gave up its right to start programs (read-only mode) searches in-process.
  return (await ws.canSpawn(rg)) ? { kind: "ripgrep", rg } : { kind: "builtin" };
}

/**
 * Flags every ripgrep call shares, matching the built-in walker: no user config, hidden
 * files included, global git excludes ignored (the walker does not read them).
 */
export const RG_COMMON_ARGS: readonly string[] = ["--no-config", "--hidden", "--no-ignore-global"];

/** Options of {@linkcode runRipgrep}. */
export interface RipgrepRunOptions {
  /** Where ripgrep runs. */
  workspace: Workspace;
  cwd: string;
  signal: AbortSignal;
  /** Record separator of stdout: `\n` for lines, `\0` for `--null` path lists. */
  separator: "\n" | "\0";
  /** Receives each record; returning `false` stops ripgrep early. */
  onRecord(record: string): boolean | void;
}

/** How a ripgrep run ended. */
export interface RipgrepOutcome {
  /** 0 = matches, 1 = none, 2 = error; -1 when stopped early. */
  code: number;
  /** The start of stderr, for error messages. */
  stderr: string;
  stopped: boolean;
}

const MAX_STDERR_CHARS = 4000;

/** Runs ripgrep, streaming stdout records to `onRecord`. */
export async function runRipgrep(
  rg: string,
  args: string[],
  opts: RipgrepRunOptions,
): Promise<RipgrepOutcome> {
  const stop = new AbortController();
  let child: WorkspaceProcess;
  try {
    child = await opts.workspace.spawn([rg, ...RG_COMMON_ARGS, ...args], {
      cwd: opts.cwd,
      signal: AbortSignal.any([opts.signal, stop.signal]),
    });
  } catch (error) {
    // Spawning fails when the directory cannot be entered; say so instead of blaming rg.
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot run ripgrep in ${opts.cwd}: ${reason}`);
  }
  const stderrText = (async () => {
    let text = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      if (text.length < MAX_STDERR_CHARS) text += chunk;
    }
    return text.slice(0, MAX_STDERR_CHARS);
  })();
  let stopped = false;
  let failed = false;
  let pending = "";
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    read: while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += value;
      let start = 0;
      for (
        let at = pending.indexOf(opts.separator);
        at !== -1;
        at = pending.indexOf(opts.separator, start)
      ) {
        const record = pending.slice(start, at);
        start = at + 1;
        if (opts.onRecord(record) === false) {
          stopped = true;
          break read;
        }
      }
      pending = pending.slice(start);
    }
    if (!stopped && pending !== "") stopped = opts.onRecord(pending) === false;
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    if (stopped || failed) {
      stop.abort();
      await reader.cancel().catch(() => {});
    }
    reader.releaseLock();
  }
  const status = await child.status;
  const stderr = await stderrText;
  return { code: stopped ? -1 : status.code, stderr: stderr.trim(), stopped };
}
