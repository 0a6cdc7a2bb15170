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
import type { Tool, ToolContext, ToolResult } from "../types.ts";
import { fsErrorMessage, sortNewestFirst } from "./fs_util.ts";
import { type ResolvedEngine, resolveEngine, runRipgrep, type SearchOptions } from "./ripgrep.ts";
import { type GlobFilter, globFilter, walkFiles } from "./walk.ts";

/** Default cap on output lines (content) or entries (other modes). */
export const DEFAULT_HEAD_LIMIT = 250;
/** Matched lines longer than this are cut in content mode. */
export const MAX_GREP_LINE_CHARS = 500;
/** The built-in engine skips larger files. */
const MAX_BUILTIN_FILE_BYTES = 64 * 1024 * 1024;

const input = z.object({
  pattern: z.string().min(1).describe(
    'Regular expression (Rust/ripgrep syntax), e.g. "TODO|FIXME" or "^import .* from".',
  ),
  path: z.string().optional().describe(
    "File or directory to search, relative to the workspace root or absolute. Default: the root.",
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

/** One line of a content-mode result. */
export interface LineHit {
  line: number;
  text: string;
  /** True for a matching line, false for a context line. */
  match: boolean;
}

function fail(content: string): ToolResult {
  return { content, isError: true };
}

function clip(text: string): string {
  return text.length > MAX_GREP_LINE_CHARS
    ? `${text.slice(0, MAX_GREP_LINE_CHARS)} [... ${
      text.length - MAX_GREP_LINE_CHARS
    } more characters]`
    : text;
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

type SearchOutcome = { ok: true; found: Found } | { ok: false; error: string };

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
  args: Args,
  target: Target,
  ctx: ToolContext,
): Promise<SearchOutcome> {
  const cwd = target.isDir ? target.path : dirname(target.path);
  const filter = target.isDir && args.glob !== undefined ? globFilter(args.glob) : undefined;
  /** The absolute path of a ripgrep result, or undefined when the glob filter rejects it. */
  const locate = (p: string): string | undefined => {
    if (!target.isDir) return p;
    const rel = p.startsWith("./") ? p.slice(2) : p;
    return filter && !filter.file(rel) ? undefined : join(cwd, rel);
  };
  const flags = ["--with-filename", ...(filter?.ripgrepArgs ?? [])];
  if (args.ignore_case) flags.push("--ignore-case");
  flags.push("--glob", "!.git");
  const tail = ["--regexp", args.pattern, "--", target.isDir ? "." : target.path];
  const base = { cwd, signal: ctx.signal };
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
    outcome = await runRipgrep(rg, ["--count", "--null", ...flags, ...tail], {
      ...base,
      separator: "\n",
      onRecord: (record) => {
        const at = record.lastIndexOf("\0");
        const path = at === -1 ? undefined : locate(record.slice(0, at));
        if (path !== undefined) counts.push([path, Number(record.slice(at + 1))]);
      },
    });
  }
  const empty = found.mode === "content"
    ? found.collector.lines.length === 0
    : found.mode === "files_with_matches"
    ? found.files.length === 0
    : found.counts.length === 0;
  if (outcome.code === 2 && empty) return { ok: false, error: outcome.stderr || "ripgrep failed" };
  return { ok: true, found };
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

/** Decodes a file for searching, or undefined for binary and oversized files. */
async function readSearchable(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    if (info.size > MAX_BUILTIN_FILE_BYTES) return undefined;
    const bytes = await Deno.readFile(path);
    if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
    if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
    if (bytes.includes(0)) return undefined;
    return new TextDecoder().decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether a file's first 8 KiB hold a NUL byte (UTF-16 with a byte-order mark is text). */
async function looksBinary(path: string): Promise<boolean> {
  try {
    using file = await Deno.open(path, { read: true });
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

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => line.endsWith("\r") ? line.slice(0, -1) : line);
}

/** Matching lines of one file plus `context` lines around each, in line order. */
function hitsOf(lines: string[], regex: RegExp, context: number): LineHit[] {
  const matches = new Set<number>();
  for (let i = 0; i < lines.length; i++) if (regex.test(lines[i])) matches.add(i);
  if (matches.size === 0) return [];
  const shown = new Set<number>(matches);
  if (context > 0) {
    for (const i of matches) {
      for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) {
        shown.add(j);
      }
    }
  }
  return [...shown].sort((a, b) => a - b).map((i) => ({
    line: i + 1,
    text: lines[i],
    match: matches.has(i),
  }));
}

async function searchBuiltin(args: Args, target: Target, ctx: ToolContext): Promise<SearchOutcome> {
  const regex = compilePattern(args.pattern, args.ignore_case);
  if (typeof regex === "string") return { ok: false, error: regex };
  const collector = new ContentCollector(ctx.root, args.head_limit, args.context);
  const files: string[] = [];
  const counts: [string, number][] = [];
  const paths = target.isDir
    ? (async function* () {
      const filter: GlobFilter | undefined = args.glob === undefined
        ? undefined
        : globFilter(args.glob);
      for await (const file of walkFiles(target.path, { signal: ctx.signal, filter })) {
        yield file.path;
      }
    })()
    : [target.path];
  for await (const path of paths) {
    const text = await readSearchable(path);
    if (text === undefined) continue;
    const lines = splitLines(text);
    if (args.output_mode === "files_with_matches") {
      if (lines.some((line) => regex.test(line))) files.push(path);
    } else if (args.output_mode === "count") {
      const n = lines.filter((line) => regex.test(line)).length;
      if (n > 0) counts.push([path, n]);
    } else {
      const hits = hitsOf(lines, regex, args.context);
      if (hits.length > 0 && !collector.add(path, hits)) break;
    }
  }
  const found: Found = args.output_mode === "content"
    ? { mode: "content", collector }
    : args.output_mode === "files_with_matches"
    ? { mode: "files_with_matches", files }
    : { mode: "count", counts };
  return { ok: true, found };
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

async function format(found: Found, args: Args, root: string): Promise<string | undefined> {
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
    const sorted = await sortNewestFirst(found.files, (f) => f);
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
  let target: Target;
  try {
    const info = await Deno.stat(path);
    target = { path, isDir: info.isDirectory, size: info.size };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return fail(`Path not found: ${shown}. Check it with ls or glob.`);
    }
    return fail(`Cannot search ${shown}: ${fsErrorMessage(error, shown)}.`);
  }
  const engine: ResolvedEngine = await resolveEngine(opts.engine);
  if (!target.isDir) {
    if (await looksBinary(path)) {
      return fail(`${shown} is a binary file; grep searches text files.`);
    }
    if (engine.kind === "builtin" && target.size > MAX_BUILTIN_FILE_BYTES) {
      return fail(
        `${shown} is too large for the built-in search (ripgrep is not installed); read it in ` +
          "windows with read_file, or use bash.",
      );
    }
  }
  let outcome: SearchOutcome;
  try {
    outcome = engine.kind === "ripgrep"
      ? await searchRipgrep(engine.rg, args, target, ctx)
      : await searchBuiltin(args, target, ctx);
  } catch (error) {
    if (ctx.signal.aborted) return fail("grep was cancelled.");
    return fail(`grep failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (ctx.signal.aborted) return fail("grep was cancelled.");
  if (!outcome.ok) {
    return fail(
      `grep failed for pattern ${JSON.stringify(args.pattern)}: ${outcome.error}\nCheck the ` +
        "regular expression (escape ( ) [ ] { } . * + ? | \\ to match them literally).",
    );
  }
  const text = await format(outcome.found, args, ctx.root);
  if (text === undefined) {
    return { content: `No matches for ${JSON.stringify(args.pattern)} in ${shown}.` };
  }
  return { content: text };
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
