/**
 * `glob`: find files by name pattern, newest first.
 *
 * @module
 */
import { join, relative } from "node:path";
import { z } from "zod";
import { defineTool } from "../define.ts";
import { displayPath, resolveToolPath, toPosix } from "../paths.ts";
import { registerBuiltinTool } from "../registry.ts";
import type { ReadGuard, Tool, ToolContext, ToolErrorCode, ToolResult } from "../types.ts";
import { isNotFound } from "../workspace/errors.ts";
import type { Workspace } from "../workspace/types.ts";
import { fsErrorMessage, sortNewestFirst } from "../fs/mod.ts";
import {
  checkSearchDir,
  errorReason,
  hiddenNote,
  resolveEngine,
  runRipgrep,
  type SearchOptions,
  unreadableNote,
} from "./ripgrep.ts";
import { globFilter, globSyntaxError, walkFiles } from "./walk.ts";

/** Files beyond this are omitted with a note. */
export const MAX_GLOB_RESULTS = 500;

const input = z.object({
  pattern: z.string().min(1).describe(
    'Glob, e.g. "**/*.ts", "src/**/test_*.py", "*.{json,yaml}".',
  ),
  path: z.string().optional().describe(
    "Directory to search. Default: the workspace root.",
  ),
});

type Args = z.infer<typeof input>;

function fail(content: string, code: ToolErrorCode): ToolResult {
  return { content, isError: true, code };
}

/** Outcome of {@linkcode globFiles}. */
export type GlobOutcome =
  | {
    ok: true;
    files: string[];
    /** A note on directories that could not be read, so the list may be incomplete. */
    unreadable?: string;
    /** Files left out because the read rules deny them. */
    hidden: number;
  }
  | { ok: false; error: string };

/**
 * Files under `dir` matching `pattern` (see {@linkcode globFilter}) and not excluded by ignore
 * files, as `/`-separated paths relative to `dir`, in no particular order. With a `readGuard`,
 * files the read rules deny are left out and counted.
 */
export async function globFiles(
  dir: string,
  pattern: string,
  opts: SearchOptions & {
    signal: AbortSignal;
    workspace: Workspace;
    readGuard?: ReadGuard;
    /** Directories whose programs are never run (the workspace root). */
    untrusted?: readonly string[];
  },
): Promise<GlobOutcome> {
  const syntax = globSyntaxError(pattern);
  if (syntax) return { ok: false, error: syntax };
  const ws = opts.workspace;
  const engine = await resolveEngine(ws, opts.engine, opts.untrusted);
  const filter = globFilter(pattern);
  const guard = opts.readGuard;
  // Entries below `dir` are real: neither engine follows symlinks inside the walk.
  const base = guard ? await guard.canonical(dir) : dir;
  let hidden = 0;
  const files: string[] = [];
  const take = (rel: string) => {
    if (guard?.blocked(join(base, rel), "Glob") !== undefined) hidden++;
    else files.push(rel);
  };
  if (engine.kind === "ripgrep") {
    const outcome = await runRipgrep(
      engine.rg,
      ["--files", "--null", ...filter.ripgrepArgs, "--glob", "!.git", "."],
      {
        workspace: ws,
        cwd: dir,
        signal: opts.signal,
        separator: "\0",
        onRecord: (record) => {
          const rel = record.startsWith("./") ? record.slice(2) : record;
          if (rel !== "" && filter.file(rel)) take(rel);
        },
      },
    );
    const problems = outcome.stderr.split("\n").filter((line) => line.trim() !== "");
    const readErrors = problems.length > 0 && problems.every((l) => /\(os error \d+\)/.test(l));
    if (outcome.code === 2 && files.length === 0 && hidden === 0 && !readErrors) {
      return { ok: false, error: outcome.stderr || "ripgrep failed" };
    }
    return {
      ok: true,
      files,
      unreadable: outcome.code === 2 ? unreadableNote(problems) : undefined,
      hidden,
    };
  }
  const skipped: string[] = [];
  const onUnreadable = (path: string, error: unknown) =>
    skipped.push(`${toPosix(relative(dir, path)) || "."}: ${errorReason(error)}`);
  for await (
    const file of walkFiles(dir, {
      workspace: ws,
      signal: opts.signal,
      filter,
      onUnreadable,
    })
  ) {
    take(file.rel);
  }
  return { ok: true, files, unreadable: unreadableNote(skipped), hidden };
}

/** Runs `glob` with a chosen engine; the registered tool uses the default. */
export async function runGlob(
  args: Args,
  ctx: ToolContext,
  opts: SearchOptions = {},
): Promise<ToolResult> {
  const shown = args.path ?? ".";
  const dir = resolveToolPath(ctx.root, shown);
  const ws = ctx.workspace;
  try {
    const info = await ws.stat(dir);
    if (!info.isDirectory) {
      return fail(
        `${shown} is not a directory. Give a directory as path, or omit it.`,
        "wrong_type",
      );
    }
    await checkSearchDir(ws, dir);
  } catch (error) {
    if (isNotFound(error)) {
      return fail(`Directory not found: ${shown}. Check the path with ls.`, "not_found");
    }
    return fail(`Cannot search ${shown}: ${fsErrorMessage(error, shown)}.`, "io");
  }
  let outcome: GlobOutcome;
  try {
    outcome = await globFiles(dir, args.pattern, {
      ...opts,
      signal: ctx.signal,
      workspace: ws,
      readGuard: ctx.readGuard,
      untrusted: [ctx.root],
    });
  } catch (error) {
    if (ctx.signal.aborted) return fail("glob was cancelled.", "cancelled");
    return fail(`glob failed: ${error instanceof Error ? error.message : String(error)}`, "io");
  }
  if (ctx.signal.aborted) return fail("glob was cancelled.", "cancelled");
  if (!outcome.ok) {
    return fail(
      `Invalid glob pattern ${JSON.stringify(args.pattern)}: ${outcome.error}`,
      "invalid_arguments",
    );
  }
  const note = (outcome.hidden ? `\n${hiddenNote(outcome.hidden, "file")}` : "") +
    (outcome.unreadable ? `\n${outcome.unreadable}` : "");
  if (outcome.files.length === 0) {
    return { content: `No files match ${JSON.stringify(args.pattern)} in ${shown}.${note}` };
  }
  const sorted = await sortNewestFirst(outcome.files, (file) => join(dir, file), { workspace: ws });
  const lines = sorted.slice(0, MAX_GLOB_RESULTS);
  if (dir !== ctx.root) lines.unshift(`Files in ${displayPath(ctx.root, dir)}/ (newest first):`);
  if (sorted.length > MAX_GLOB_RESULTS) {
    lines.push(
      `[... ${sorted.length - MAX_GLOB_RESULTS} more files omitted; narrow the pattern or path]`,
    );
  }
  return { content: lines.join("\n") + note };
}

/** The `glob` tool. */
export const globTool: Tool = defineTool({
  name: "glob",
  description: "Find files by glob pattern. A pattern without `/` matches file names at any " +
    "depth (`*.ts` = `**/*.ts`); `**` crosses directories; `{a,b}` alternates. Returns paths " +
    "relative to the searched directory, newest first, at most 500. Hidden files are " +
    "included; .git and files excluded by .gitignore are skipped.",
  input,
  readOnly: true,
  access: (args) => ({ rule: "Glob", reads: [args.path ?? "."] }),
  run: (args, ctx) => runGlob(args, ctx),
});

registerBuiltinTool(globTool);
