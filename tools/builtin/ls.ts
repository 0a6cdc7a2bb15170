/**
 * `ls`: one directory level, directories first.
 *
 * @module
 */
import { join } from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { defineTool } from "../define.ts";
import { resolveToolPath } from "../paths.ts";
import { registerBuiltinTool } from "../registry.ts";
import type { Tool, ToolErrorCode, ToolResult } from "../types.ts";
import { isNotFound } from "../workspace/errors.ts";
import type { Workspace } from "../workspace/types.ts";
import { formatSize, fsErrorMessage } from "../fs/mod.ts";
import { hiddenNote } from "./ripgrep.ts";
import { bangClasses } from "./walk.ts";

/** Entries beyond this are omitted with a note. */
export const MAX_LS_ENTRIES = 1000;

const input = z.object({
  path: z.string().optional().describe(
    "Directory to list. Default: the workspace root.",
  ),
  ignore: z.array(z.string()).optional().describe(
    'Glob patterns of entry names to leave out, e.g. ["*.log", "node_modules"].',
  ),
});

function fail(content: string, code: ToolErrorCode): ToolResult {
  return { content, isError: true, code };
}

interface Row {
  name: string;
  dir: boolean;
  symlink: boolean;
}

function byName(a: Row, b: Row): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** One output line; only shown rows are stat'ed, so huge directories stay cheap. */
async function describe(ws: Workspace, dir: string, row: Row): Promise<string> {
  const full = join(dir, row.name);
  if (row.symlink) {
    const target = await ws.readLink(full).catch(() => "?");
    return `${row.name}${row.dir ? "/" : ""} -> ${target}`;
  }
  if (row.dir) return `${row.name}/`;
  const size = await ws.lstat(full).then((s) => formatSize(s.size), () => "?");
  return `${row.name}  ${size}`;
}

/** The `ls` tool. */
export const lsTool: Tool = defineTool({
  name: "ls",
  description: "List one directory level: subdirectories first (name ending in `/`), then " +
    "files with their sizes, each group sorted by name; symlinks show their target. At most " +
    "1000 entries. Use glob to find files recursively.",
  input,
  readOnly: true,
  access: (args) => ({ rule: "LS", reads: [args.path ?? "."] }),
  async run(args, ctx) {
    const shown = args.path ?? ".";
    const dir = resolveToolPath(ctx.root, shown);
    const skip = args.ignore?.length
      ? picomatch(args.ignore.map(bangClasses), { dot: true })
      : undefined;
    const rows: Row[] = [];
    let hidden = 0;
    const ws = ctx.workspace;
    try {
      const info = await ws.stat(dir);
      if (!info.isDirectory) {
        return fail(`${shown} is not a directory. Use read_file to read a file.`, "wrong_type");
      }
      // Each entry is checked where it is (a symlink by its own name, not its target).
      const guard = ctx.readGuard;
      const base = guard ? await guard.canonical(dir) : dir;
      for await (const entry of ws.readDir(dir)) {
        if (ctx.signal.aborted) return fail(`Listing ${shown} was cancelled.`, "cancelled");
        if (skip?.(entry.name)) continue;
        if (guard?.blocked(join(base, entry.name), "LS") !== undefined) {
          hidden++;
          continue;
        }
        const isDir = entry.isSymlink
          ? await ws.stat(join(dir, entry.name)).then((s) => s.isDirectory, () => false)
          : entry.isDirectory;
        rows.push({ name: entry.name, dir: isDir, symlink: entry.isSymlink });
      }
    } catch (error) {
      if (isNotFound(error)) {
        return fail(
          `Directory not found: ${shown}. Check the path, or list its parent.`,
          "not_found",
        );
      }
      return fail(`Cannot list ${shown}: ${fsErrorMessage(error, shown)}.`, "io");
    }
    const note = hidden ? `\n${hiddenNote(hidden, "entry")}` : "";
    if (rows.length === 0) {
      return { content: hidden ? `${shown} shows no entries.${note}` : `${shown} is empty.` };
    }
    const dirs = rows.filter((r) => r.dir).sort(byName);
    const files = rows.filter((r) => !r.dir).sort(byName);
    const all = [...dirs, ...files];
    const lines = await Promise.all(all.slice(0, MAX_LS_ENTRIES).map((r) => describe(ws, dir, r)));
    if (all.length > MAX_LS_ENTRIES) {
      lines.push(
        `[... ${all.length - MAX_LS_ENTRIES} more entries omitted; use glob or ignore to narrow]`,
      );
    }
    return { content: lines.join("\n") + note };
  },
});

registerBuiltinTool(lsTool);
