/**
 * `move_file`: rename or move a file or directory, across file systems when needed.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { defineTool } from "../define.ts";
import { isWithin, resolveToolPath } from "../paths.ts";
import { registerBuiltinTool } from "../registry.ts";
import type { Tool, ToolErrorCode, ToolResult } from "../types.ts";
import { fsErrorCode, isPermissionDenied } from "../workspace/errors.ts";
import type { FileInfo, Workspace } from "../workspace/types.ts";
import { fsErrorMessage, lstatOrUndefined, specialFileKind } from "../fs/mod.ts";

const input = z.object({
  source: z.string().min(1).describe(
    "File or directory to move.",
  ),
  destination: z.string().min(1).describe(
    "New full path (not a directory to move into).",
  ),
  overwrite: z.boolean().default(false).describe("Replace an existing destination file."),
});

function fail(content: string, code: ToolErrorCode): ToolResult {
  return { content, isError: true, code };
}

/** Copies a file, symlink or directory tree, keeping permission bits. */
async function copyTree(
  opts: { workspace: Workspace; from: string; to: string; signal: AbortSignal },
): Promise<void> {
  const { workspace: ws, from, to, signal } = opts;
  signal.throwIfAborted();
  const info = await ws.lstat(from, { signal });
  if (info.isSymlink) {
    await ws.symlink(await ws.readLink(from, { signal }), to, { signal });
  } else if (info.isDirectory) {
    await ws.mkdir(to, { mode: info.mode === null ? undefined : info.mode & 0o7777, signal });
    for await (const entry of ws.readDir(from, { signal })) {
      await copyTree({
        workspace: ws,
        from: join(from, entry.name),
        to: join(to, entry.name),
        signal,
      });
    }
  } else if (info.isFile) {
    await ws.copyFile(from, to, { signal });
  } else {
    // Copying a FIFO's or device's content would block or never end.
    throw new Error(
      `${from} is ${specialFileKind(info)}, which cannot be copied to another file system; ` +
        "move it with bash (mv) instead",
    );
  }
}

/**
 * Moves `from` to `to` when a rename cannot (different file systems): copies to a temporary
 * name beside `to`, renames it into place, then removes `from`. A failure before the final
 * rename leaves `from` and any existing `to` untouched.
 */
export async function copyThenRemove(
  from: string,
  to: string,
  opts: { signal: AbortSignal; workspace: Workspace },
): Promise<void> {
  const ws = opts.workspace;
  const temp = join(dirname(to), `.${basename(to)}.${crypto.randomUUID().slice(0, 8)}.moving`);
  try {
    await copyTree({ workspace: ws, from, to: temp, signal: opts.signal });
    await ws.rename(temp, to);
  } catch (error) {
    await ws.remove(temp, { recursive: true }).catch(() => {});
    throw error;
  }
  try {
    await ws.remove(from, { recursive: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the copy at ${to} is complete, but removing the source failed (${reason}); part of ` +
        `${from} may remain, so remove it yourself`,
    );
  }
}

/**
 * Where `path` lands after following every symlink among its existing components: the real
 * path of its deepest existing ancestor, then the missing rest. The last component itself is
 * followed only when `followLast` is set (a rename moves a link, not its target).
 */
async function landingPath(ws: Workspace, path: string, followLast: boolean): Promise<string> {
  const rest: string[] = [];
  let current = path;
  if (!followLast) {
    rest.push(basename(current));
    current = dirname(current);
  }
  while (true) {
    try {
      return join(await ws.realPath(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

function isCrossDevice(error: unknown): boolean {
  return fsErrorCode(error) === "EXDEV";
}

/** The `move_file` tool. */
export const moveFileTool: Tool = defineTool({
  name: "move_file",
  description: "Move or rename a file or directory. `destination` is the new full path; " +
    "missing parent directories are created. An existing destination file is replaced only " +
    "when `overwrite` is true; an existing directory is never replaced.",
  input,
  readOnly: false,
  access: (args) => ({
    rule: "Edit",
    writes: [args.source, args.destination],
    moves: [{ from: args.source, to: args.destination }],
  }),
  async run(args, ctx) {
    const { source, destination } = args;
    const from = resolveToolPath(ctx.root, source);
    const to = resolveToolPath(ctx.root, destination);
    const ws = ctx.workspace;
    const on = { workspace: ws };
    try {
      const fromInfo = await lstatOrUndefined(from, on);
      if (!fromInfo) {
        return fail(
          `Cannot move ${source}: it does not exist. Check the path with ls or glob.`,
          "not_found",
        );
      }
      if (from === to) {
        return fail(
          "source and destination are the same path; nothing to do.",
          "invalid_arguments",
        );
      }
      const realFrom = await landingPath(ws, from, false);
      const realTo = await landingPath(ws, to, false);
      if (isWithin(realFrom, ctx.root) || isWithin(from, ctx.root)) {
        return fail(
          `Cannot move ${source}: it is the workspace root or contains it (${ctx.root}). Move ` +
            "files and folders inside it instead.",
          "invalid_arguments",
        );
      }
      if (realFrom === realTo) {
        return fail(
          `source and destination are the same path (${destination} reaches ${source} through ` +
            "a symlinked folder); nothing to do.",
          "invalid_arguments",
        );
      }
      if (fromInfo.isDirectory && (isWithin(from, to) || isWithin(realFrom, realTo))) {
        return fail(
          `Cannot move directory ${source} into itself (${destination}).`,
          "invalid_arguments",
        );
      }
      let toInfo: FileInfo | undefined;
      try {
        toInfo = await lstatOrUndefined(to, on);
      } catch (error) {
        return fail(
          `Cannot move ${source} to ${destination}: ${fsErrorMessage(error, destination)}. ` +
            "Check the destination path.",
          "io",
        );
      }
      if (toInfo) {
        if (toInfo.isDirectory) {
          return fail(
            `Cannot move to ${destination}: it is an existing directory. Give the full new ` +
              `path, e.g. ${join(destination, basename(source))}.`,
            "conflict",
          );
        }
        if (!args.overwrite) {
          return fail(
            `Cannot move to ${destination}: it already exists. Set overwrite to true to ` +
              "replace it, or choose another destination.",
            "conflict",
          );
        }
        if (fromInfo.isDirectory) {
          return fail(`Cannot replace file ${destination} with directory ${source}.`, "conflict");
        }
        if (fromInfo.ino !== null && fromInfo.ino === toInfo.ino && fromInfo.dev === toInfo.dev) {
          // rename(2) between two links to one file succeeds without doing anything.
          return fail(
            `${source} and ${destination} are hard links to the same file, so moving would ` +
              `change nothing. To keep only ${destination}, delete ${source} with bash (rm).`,
            "invalid_arguments",
          );
        }
      }
      try {
        await ws.mkdir(dirname(to), { recursive: true });
      } catch (error) {
        const folder = dirname(destination);
        return fail(
          `Cannot move ${source} to ${destination}: cannot create its folder: ` +
            `${fsErrorMessage(error, folder)}. Check the destination path.`,
          "io",
        );
      }
      try {
        await ws.rename(from, to);
      } catch (error) {
        if (!isCrossDevice(error)) throw error;
        await copyThenRemove(from, to, { signal: ctx.signal, workspace: ws });
      }
      const replaced = toInfo ? " (replaced the existing file)" : "";
      return { content: `Moved ${source} to ${destination}${replaced}`, meta: { from, to } };
    } catch (error) {
      if (ctx.signal.aborted) {
        return fail(`Moving ${source} was cancelled; ${source} was not moved.`, "cancelled");
      }
      const reason = isPermissionDenied(error)
        ? `permission denied (check write access to the folders of ${source} and ${destination})`
        : error instanceof Error && error.constructor === Error
        ? error.message
        : fsErrorMessage(error, source);
      return fail(`Cannot move ${source} to ${destination}: ${reason}.`, "io");
    }
  },
});

registerBuiltinTool(moveFileTool);
