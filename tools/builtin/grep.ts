/**
 * `grep`: regular-expression search over file contents, by ripgrep when installed and by the
 * built-in walker otherwise. Both engines feed the same formatter, so their output is equal.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { z } from "zod";
import { defineTool } from "../define.ts";
import { displayPath, resolveToolPath } from "../paths.ts";
import { registerBuiltinTool } from "../registry.ts";
import type { Tool, ToolContext, ToolErrorCode, ToolResult } from "../types.ts";
import { isNotFound } from "../workspace/errors.ts";
import type { Workspace } from "../workspace/types.ts";
import { clipLine, fsErrorMessage, sortNewestFirst, specialFileKind } from "../fs/mod.ts";
import {
  type FileMatch,
  type LineHit,
  LineMatcher,
  MatchBudgetError,
  MAX_BUILTIN_FILE_BYTES,
} from "./line_matcher.ts";
import {
  checkSearchDir,
  errorReason,
  type ResolvedEngine,
  resolveEngine,
  runRipgrep,
  type SearchOptions,
  unreadableNote,
} from "./ripgrep.ts";
import { type GlobFilter, globFilter, globSyntaxError, walkFiles } from "./walk.ts";

export type { LineHit };

/** Default cap on output lines (content) or entries (other modes). */
export const DEFAULT_HEAD_LIMIT = 250;
/** Matched lines longer than this are cut in content mode. */
export const MAX_GREP_LINE_CHARS = 500;

const input = z.object({
  pattern: z.string().min(1).describe(
    'Regular expression (Rust/ripgrep syntax), e.g. "TODO|FIXME" or "^import .* from".',
  ),
  path: z.string().optional().describe(
    "File or directory to search. Default: the workspace root.",
  ),
  glob: z.string().optional().describe(
    'Only search files matching this glob, e.g. "*.ts", "src/**/*.rs"; "!*.md" excludes.',
  ),
  ignore_case: z.boolean().default(false).describe("Match case-insensitively."),
  output_mode: z.enum(["content", "files_with_matches", "count"]).default("files_with_matches")
    .describe("What to return (see the tool description)."),
  context: z.number().int().min(0).max(50).default(0).describe(
    "Lines of context before and after each match (content mode).",
  ),
  head_limit: z.number().int().min(1).default(DEFAULT_HEAD_LIMIT).describe(
    "Maximum output lines (content) or entries (other modes).",
  ),
});

type Args = z.infer<typeof input>;

function fail(content: string, code: ToolErrorCode): ToolResult {
  return { content, isError: true, code };
}

function clip(text: string): string {
  return clipLine(text, MAX_GREP_LINE_CHARS);
}

/** Formats content-mode hits as `path:line:text` / `path-line-text`, groups split by `--`. */
class ContentCollector {
  readonly lines: string[] = [];
  truncated = false;
  #count = 0;
  #last: { path: string; line: number } | undefined;

  constructor(readonly root: string, readonly limit: number, readonly context: number) {}

  /** Adds one file's hits in line order; false once the limit is reached. */
  add(path: string, hits: LineHit[]): boolean {
    const shown = displayPath(this.root, path);
    for (const hit of hits) {
      if (this.#count >= this.limit) {
        this.truncated = true;
        return false;
      }
      const last = this.#last;
      if (this.context > 0 && last && (last.path !== path || hit.line !== last.line + 1)) {
        this.lines.push("--");
      }
      const sep = hit.match ? ":" : "-";
      this.lines.push(`${shown}${sep}${hit.line}${sep}${clip(hit.text)}`);
      this.#count++;
      this.#last = { path, line: hit.line };
    }
    return true;
  }
}

/** What one engine pass found, before formatting. */
type Found =
  | { mode: "content"; collector: ContentCollector }
  | { mode: "files_with_matches"; files: string[] }
  | { mode: "count"; counts: [string, number][] };

type SearchOutcome =
  | {
    ok: true;
    found: Found;
    /** A note on paths that could not be read, so the results may be incomplete. */
    unreadable?: string;
  }
  | { ok: false; error: string };

/** The line text from a ripgrep JSON `{text}` / `{bytes}` field. */
function rgText(field: { text?: string; bytes?: string } | undefined): string {
  if (!field) return "";
  if (field.text !== undefined) return field.text;
  const raw = Uint8Array.from(atob(field.bytes ?? ""), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(raw);
}

function stripEol(text: string): string {
  const noLf = text.endsWith("\n") ? text.slice(0, -1) : text;
  return noLf.endsWith("\r") ? noLf.slice(0, -1) : noLf;
}

interface Target {
  /** Absolute path searched. */
  path: string;
  isDir: boolean;
  size: number;
}

async function searchRipgrep(
  rg: string,
  search: { args: Args; target: Target; ctx: ToolContext },
): Promise<SearchOutcome> {
  const { args, target, ctx } = search;
  const cwd = target.isDir ? target.path : dirname(target.path);
  const filter = target.isDir && args.glob !== undefined ? globFilter(args.glob) : undefined;
  const denied = await readDenied(ctx, cwd);
  /**
   * The absolute path of a ripgrep result, or undefined when the glob filter rejects it or
   * the read rules deny it. ripgrep has read a denied file, but nothing of it is passed on.
   */
  const locate = (p: string): string | undefined => {
    // A single file is the one searched, however ripgrep spells its name.
    if (!target.isDir) return target.path;
    const rel = p.startsWith("./") ? p.slice(2) : p;
    if (filter && !filter.file(rel)) return undefined;
    return denied(rel) ? undefined : join(cwd, rel);
  };
  const flags = ["--with-filename", ...(filter?.ripgrepArgs ?? [])];
  if (args.ignore_case) flags.push("--ignore-case");
  flags.push("--glob", "!.git");
  const tail = ["--regexp", args.pattern, "--", target.isDir ? "." : target.path];
  const base = { workspace: ctx.workspace, cwd, signal: ctx.signal };
  let found: Found;
  let outcome;
  if (args.output_mode === "content") {
    const collector = new ContentCollector(ctx.root, args.head_limit, args.context);
    found = { mode: "content", collector };
    let current: { path: string; hits: LineHit[] } | undefined;
    const contextFlags = args.context > 0 ? ["--context", String(args.context)] : [];
    // Sorted by ripgrep, so output can stop at head_limit; the other modes sort afterwards.
    const sorted = ["--sort", "path", ...contextFlags];
    outcome = await runRipgrep(rg, ["--json", ...flags, ...sorted, ...tail], {
      ...base,
      separator: "\n",
      onRecord(record) {
        if (record === "") return;
        const message = JSON.parse(record);
        const data = message.data;
        if (message.type === "begin") {
          const path = locate(rgText(data.path));
          current = path === undefined ? undefined : { path, hits: [] };
        } else if ((message.type === "match" || message.type === "context") && current) {
          current.hits.push({
            line: data.line_number,
            text: stripEol(rgText(data.lines)),
            match: message.type === "match",
          });
        } else if (message.type === "end" && current) {
          const more = collector.add(current.path, current.hits);
          current = undefined;
          return more;
        }
      },
    });
  } else if (args.output_mode === "files_with_matches") {
    const files: string[] = [];
    found = { mode: "files_with_matches", files };
    outcome = await runRipgrep(rg, ["--files-with-matches", "--null", ...flags, ...tail], {
      ...base,
      separator: "\0",
      onRecord: (record) => {
        const path = record === "" ? undefined : locate(record);
        if (path !== undefined) files.push(path);
      },
    });
  } else {
    const counts: [string, number][] = [];
    found = { mode: "count", counts };
    // Records are `path\0count\n`; split at the NULs, since a path may contain `\n`: each
    // piece after the first is `count\n` followed by the next path.
    let path: string | undefined;
    outcome = await runRipgrep(rg, ["--count", "--null", ...flags, ...tail], {
      ...base,
      separator: "\0",
      onRecord: (record) => {
        if (path === undefined) {
          path = record;
          return;
        }
        const eol = record.indexOf("\n");
        const count = Number(eol === -1 ? record : record.slice(0, eol));
        const located = locate(path);
        if (located !== undefined) counts.push([located, count]);
        path = eol === -1 || eol === record.length - 1 ? undefined : record.slice(eol + 1);
      },
    });
  }
  const empty = found.mode === "content"
    ? found.collector.lines.length === 0
    : found.mode === "files_with_matches"
    ? found.files.length === 0
    : found.counts.length === 0;
  if (outcome.code === 2 && empty && !isReadError(outcome.stderr)) {
    return { ok: false, error: outcome.stderr || "ripgrep failed" };
  }
  const unreadable = outcome.code === 2 && outcome.stderr
    ? unreadableNote(outcome.stderr.split("\n").filter((l) => l.trim() !== ""))
    : undefined;
  return { ok: true, found, unreadable };
}

/**
 * Whether the read rules deny a file given relative to the searched directory `dir`. Entries
 * below `dir` are real (neither engine follows symlinks inside a search), so the canonical
 * `dir` joined with the relative path is where the file is.
 */
async function readDenied(ctx: ToolContext, dir: string): Promise<(rel: string) => boolean> {
  const guard = ctx.readGuard;
  if (!guard) return () => false;
  const base = await guard.canonical(dir);
  return (rel) => guard.blocked(join(base, rel), "Grep") !== undefined;
}

/** Whether ripgrep's stderr reports only unreadable paths (not a pattern error). */
function isReadError(stderr: string): boolean {
  const lines = stderr.split("\n").filter((line) => line.trim() !== "");
  return lines.length > 0 && lines.every((line) => /\(os error \d+\)/.test(line));
}

/** Compiles the pattern for the built-in engine, accepting a leading `(?i)` like Rust. */
function compilePattern(pattern: string, ignoreCase: boolean): RegExp | string {
  let source = pattern;
  let flags = "s";
  if (source.startsWith("(?i)")) {
    source = source.slice(4);
    ignoreCase = true;
  }
  if (ignoreCase) flags += "i";
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}

/** Whether a file's first 8 KiB hold a NUL byte (UTF-16 with a byte-order mark is text). */
async function looksBinary(ws: Workspace, path: string): Promise<boolean> {
  try {
    await using file = await ws.open(path, { read: true });
    const head = new Uint8Array(8192);
    const n = await file.read(head) ?? 0;
    const bytes = head.subarray(0, n);
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
      return false;
    }
    return bytes.includes(0);
  } catch {
    return false;
  }
}

async function searchBuiltin(
  search: { args: Args; target: Target; ctx: ToolContext },
  opts: SearchOptions,
): Promise<SearchOutcome> {
  const { args, target, ctx } = search;
  const regex = compilePattern(args.pattern, args.ignore_case);
  if (typeof regex === "string") return { ok: false, error: regex };
  const collector = new ContentCollector(ctx.root, args.head_limit, args.context);
  const files: string[] = [];
  const counts: [string, number][] = [];
  const skipped: string[] = [];
  const denied = target.isDir ? await readDenied(ctx, target.path) : () => false;
  const paths = target.isDir
    ? (async function* () {
      const filter: GlobFilter | undefined = args.glob === undefined
        ? undefined
        : globFilter(args.glob);
      const onUnreadable = (path: string, error: unknown) =>
        skipped.push(`${displayPath(ctx.root, path)}: ${errorReason(error)}`);
      const walk = walkFiles(target.path, {
        workspace: ctx.workspace,
        signal: ctx.signal,
        filter,
        onUnreadable,
      });
      for await (const file of walk) {
        // Never opened: not even a "skipped" note, which would depend on the search.
        if (!denied(file.rel)) yield file.path;
      }
    })()
    : [target.path];
  using matcher = new LineMatcher({
    workspace: ctx.workspace,
    source: regex.source,
    flags: regex.flags,
    mode: args.output_mode,
    context: args.context,
    signal: ctx.signal,
    budgetMs: opts.fileBudgetMs,
  });
  const queue: { path: string; result: Promise<FileMatch> }[] = [];
  /** Records one file's outcome; false once content output is full. */
  const take = (path: string, result: FileMatch): boolean => {
    if (result.kind === "unreadable") {
      skipped.push(`${displayPath(ctx.root, path)}: ${errorReason(result.error)}`);
    } else if (result.kind === "matched" && result.matched) files.push(path);
    else if (result.kind === "count" && result.count > 0) counts.push([path, result.count]);
    else if (result.kind === "hits" && result.hits.length > 0) {
      return collector.add(path, result.hits);
    }
    return true;
  };
  let more = true;
  for await (const path of paths) {
    // Content mode needs no more matching lines than fit, plus one to know output was cut.
    queue.push({ path, result: matcher.match(path, args.head_limit + 1) });
    if (!matcher.ready) {
      const head = queue.shift()!;
      more = take(head.path, await head.result);
      if (!more) break;
    }
  }
  while (more && queue.length > 0) {
    const head = queue.shift()!;
    more = take(head.path, await head.result);
  }
  const found: Found = args.output_mode === "content"
    ? { mode: "content", collector }
    : args.output_mode === "files_with_matches"
    ? { mode: "files_with_matches", files }
    : { mode: "count", counts };
  return { ok: true, found, unreadable: unreadableNote(skipped) };
}

/** Orders paths the way a sorted directory walk visits them: segment by segment. */
function compareWalkOrder(a: string, b: string): number {
  const pa = a.split(/[\\/]/);
  const pb = b.split(/[\\/]/);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  }
  return pa.length - pb.length;
}

function omitted(n: number, noun: string): string {
  return `[... ${n} more ${noun} omitted; narrow the search or raise head_limit]`;
}

async function format(found: Found, args: Args, ctx: ToolContext): Promise<string | undefined> {
  const root = ctx.root;
  if (found.mode === "content") {
    if (found.collector.lines.length === 0) return undefined;
    const lines = [...found.collector.lines];
    if (found.collector.truncated) {
      lines.push(
        `[... output stopped at head_limit=${args.head_limit} lines; narrow the search or ` +
          "raise head_limit]",
      );
    }
    return lines.join("\n");
  }
  if (found.mode === "files_with_matches") {
    if (found.files.length === 0) return undefined;
    const sorted = await sortNewestFirst(found.files, (f) => f, { workspace: ctx.workspace });
    const lines = sorted.slice(0, args.head_limit).map((f) => displayPath(root, f));
    if (sorted.length > args.head_limit) {
      lines.push(omitted(sorted.length - args.head_limit, "files"));
    }
    return lines.join("\n");
  }
  if (found.counts.length === 0) return undefined;
  const counts = [...found.counts].sort((a, b) => compareWalkOrder(a[0], b[0]));
  const lines = counts.slice(0, args.head_limit).map(([f, n]) => `${displayPath(root, f)}:${n}`);
  if (found.counts.length > args.head_limit) {
    lines.push(omitted(found.counts.length - args.head_limit, "files"));
  }
  return lines.join("\n");
}

/** Runs `grep` with a chosen engine; the registered tool uses the default. */
export async function runGrep(
  args: Args,
  ctx: ToolContext,
  opts: SearchOptions = {},
): Promise<ToolResult> {
  const shown = args.path ?? ".";
  const path = resolveToolPath(ctx.root, shown);
  const globError = args.glob === undefined ? undefined : globSyntaxError(args.glob);
  if (globError) {
    return fail(
      `Invalid glob ${JSON.stringify(args.glob)}: ${globError}. Fix the glob argument.`,
      "invalid_arguments",
    );
  }
  const ws = ctx.workspace;
  let target: Target;
  try {
    const info = await ws.stat(path);
    if (!info.isDirectory && !info.isFile) {
      // Opening a FIFO blocks until a writer appears; a device may never end.
      return fail(
        `Cannot search ${shown}: it is ${specialFileKind(info)}, not a regular file or ` +
          "directory.",
        "wrong_type",
      );
    }
    target = { path, isDir: info.isDirectory, size: info.size };
    if (target.isDir) await checkSearchDir(ws, path);
    else await (await ws.open(path, { read: true })).close();
  } catch (error) {
    if (isNotFound(error)) {
      return fail(`Path not found: ${shown}. Check it with ls or glob.`, "not_found");
    }
    return fail(`Cannot search ${shown}: ${fsErrorMessage(error, shown)}.`, "io");
  }
  if (!target.isDir && ctx.readGuard) {
    // The gate checked the path as given; this is the file that will be opened.
    const by = ctx.readGuard.blocked(await ctx.readGuard.canonical(path), "Grep");
    if (by) {
      return fail(`Cannot search ${shown}: the ${by} denies reading it.`, "permission_denied");
    }
  }
  const engine: ResolvedEngine = await resolveEngine(ws, opts.engine, [ctx.root]);
  if (!target.isDir) {
    if (await looksBinary(ws, path)) {
      return fail(`${shown} is a binary file; grep searches text files.`, "wrong_type");
    }
    if (engine.kind === "builtin" && target.size > MAX_BUILTIN_FILE_BYTES) {
      return fail(
        `${shown} is too large for the built-in search (ripgrep is not installed); read it in ` +
          "windows with read_file, or use bash.",
        "too_large",
      );
    }
  }
  let outcome: SearchOutcome;
  try {
    outcome = engine.kind === "ripgrep"
      ? await searchRipgrep(engine.rg, { args, target, ctx })
      : await searchBuiltin({ args, target, ctx }, opts);
  } catch (error) {
    if (ctx.signal.aborted) return fail("grep was cancelled.", "cancelled");
    if (error instanceof MatchBudgetError) {
      return fail(
        `grep stopped: matching ${displayPath(ctx.root, error.path)} took longer than ` +
          `${error.budgetMs / 1000}s. ripgrep is not available, and the built-in engine uses ` +
          "JavaScript regular expressions, which backtrack: nested quantifiers like (a+)+ or " +
          "several .* on long lines can take exponential time. Simplify the pattern, or narrow " +
          "path or glob to skip that file.",
        "timeout",
      );
    }
    return fail(`grep failed: ${error instanceof Error ? error.message : String(error)}`, "io");
  }
  if (ctx.signal.aborted) return fail("grep was cancelled.", "cancelled");
  if (!outcome.ok) {
    return fail(
      `grep failed for pattern ${JSON.stringify(args.pattern)}: ${outcome.error}\nCheck the ` +
        "regular expression (escape ( ) [ ] { } . * + ? | \\ to match them literally).",
      "invalid_arguments",
    );
  }
  const text = await format(outcome.found, args, ctx);
  const note = outcome.unreadable ? `\n${outcome.unreadable}` : "";
  if (text === undefined) {
    return { content: `No matches for ${JSON.stringify(args.pattern)} in ${shown}.${note}` };
  }
  return { content: text + note };
}

/** The `grep` tool. */
export const grepTool: Tool = defineTool({
  name: "grep",
  description: "Search file contents with a regular expression, skipping binary files, .git " +
    "and .gitignore'd paths. output_mode: files_with_matches (default; paths, newest first), " +
    "content (`path:line:text` for matches, `path-line-text` for context lines, `--` between " +
    "groups), count (`path:count`). Paths are relative to the workspace root. The `glob` " +
    "argument narrows the files searched; head_limit caps the output.",
  input,
  readOnly: true,
  access: (args) => ({ rule: "Grep", reads: [args.path ?? "."] }),
  run: (args, ctx) => runGrep(args, ctx),
});

registerBuiltinTool(grepTool);
