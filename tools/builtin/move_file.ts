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
import type { Tool, ToolResult } from "../types.ts";
import { fsErrorMessage, lstatOrUndefined, specialFileKind } from "./fs_util.ts";

const input = z.object({
  source: z.string().min(1).describe(
    "File or directory to move, relative to the workspace root or absolute.",
  ),
  destination: z.string().min(1).describe(
    "New full path (not a directory to move into), relative to the workspace root or absolute.",
  ),
  overwrite: z.boolean().default(false).describe("Replace an existing destination file."),
});

function fail(content: string): ToolResult {
  return { content, isError: true };
}

/** Copies a file, symlink or directory tree, keeping permission bits. */
async function copyTree(from: string, to: string, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  const info = await Deno.lstat(from);
  if (info.isSymlink) {
    await Deno.symlink(await Deno.readLink(from), to);
  } else if (info.isDirectory) {
    await Deno.mkdir(to, { mode: info.mode === null ? undefined : info.mode & 0o7777 });
    for await (const entry of Deno.readDir(from)) {
      await copyTree(join(from, entry.name), join(to, entry.name), signal);
    }
  } else if (info.isFile) {
    await Deno.copyFile(from, to);
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
  opts: { signal: AbortSignal },
): Promise<void> {
  const temp = join(dirname(to), `.${basename(to)}.${crypto.randomUUID().slice(0, 8)}.moving`);
  try {
    await copyTree(from, temp, opts.signal);
    await Deno.rename(temp, to);
  } catch (error) {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
    throw error;
  }
  try {
    await Deno.remove(from, { recursive: true });
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
async function landingPath(path: string, followLast: boolean): Promise<string> {
  const rest: string[] = [];
  let current = path;
  if (!followLast) {
    rest.push(basename(current));
    current = dirname(current);
  }
  while (true) {
    try {
      return join(await Deno.realPath(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

function isCrossDevice(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "EXDEV";
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
    try {
      const fromInfo = await lstatOrUndefined(from);
      if (!fromInfo) {
        return fail(`Cannot move ${source}: it does not exist. Check the path with ls or glob.`);
      }
      if (from === to) return fail("source and destination are the same path; nothing to do.");
      const realFrom = await landingPath(from, false);
      const realTo = await landingPath(to, false);
      if (isWithin(realFrom, ctx.root) || isWithin(from, ctx.root)) {
        return fail(
          `Cannot move ${source}: it is the workspace root or contains it (${ctx.root}). Move ` +
            "files and folders inside it instead.",
        );
      }
      if (realFrom === realTo) {
        return fail(
          `source and destination are the same path (${destination} reaches ${source} through ` +
            "a symlinked folder); nothing to do.",
        );
      }
      if (fromInfo.isDirectory && (isWithin(from, to) || isWithin(realFrom, realTo))) {
        return fail(`Cannot move directory ${source} into itself (${destination}).`);
      }
      let toInfo: Deno.FileInfo | undefined;
      try {
        toInfo = await lstatOrUndefined(to);
      } catch (error) {
        return fail(
          `Cannot move ${source} to ${destination}: ${fsErrorMessage(error, destination)}. ` +
            "Check the destination path.",
        );
      }
      if (toInfo) {
        if (toInfo.isDirectory) {
          return fail(
            `Cannot move to ${destination}: it is an existing directory. Give the full new ` +
              `path, e.g. ${join(destination, basename(source))}.`,
          );
        }
        if (!args.overwrite) {
          return fail(
            `Cannot move to ${destination}: it already exists. Set overwrite to true to ` +
              "replace it, or choose another destination.",
          );
        }
        if (fromInfo.isDirectory) {
          return fail(`Cannot replace file ${destination} with directory ${source}.`);
        }
        if (fromInfo.ino !== null && fromInfo.ino === toInfo.ino && fromInfo.dev === toInfo.dev) {
          // rename(2) between two links to one file succeeds without doing anything.
          return fail(
            `${source} and ${destination} are hard links to the same file, so moving would ` +
              `change nothing. To keep only ${destination}, delete ${source} with bash (rm).`,
          );
        }
      }
      try {
        await Deno.mkdir(dirname(to), { recursive: true });
      } catch (error) {
        const folder = dirname(destination);
        return fail(
          `Cannot move ${source} to ${destination}: cannot create its folder: ` +
            `${fsErrorMessage(error, folder)}. Check the destination path.`,
        );
      }
      try {
        await Deno.rename(from, to);
      } catch (error) {
        if (!isCrossDevice(error)) throw error;
        await copyThenRemove(from, to, { signal: ctx.signal });
      }
      const replaced = toInfo ? " (replaced the existing file)" : "";
      return { content: `Moved ${source} to ${destination}${replaced}`, meta: { from, to } };
    } catch (error) {
      if (ctx.signal.aborted) {
        return fail(`Moving ${source} was cancelled; ${source} was not moved.`);
      }
      const reason = error instanceof Deno.errors.PermissionDenied
        ? `permission denied (check write access to the folders of ${source} and ${destination})`
        : error instanceof Error && error.constructor === Error
        ? error.message
        : fsErrorMessage(error, source);
      return fail(`Cannot move ${source} to ${destination}: ${reason}.`);
    }
  },
});

registerBuiltinTool(moveFileTool);
