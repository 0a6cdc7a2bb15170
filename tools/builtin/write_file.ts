/**
 * `write_file`: create or overwrite a whole file, atomically.
 *
 * @module
 */
import { dirname } from "node:path";
import { z } from "zod";
import { defineTool } from "../define.ts";
import { resolveToolPath } from "../paths.ts";
import { registerBuiltinTool } from "../registry.ts";
import type { Tool, ToolResult } from "../types.ts";
import { unifiedDiff } from "./diff_meta.ts";
import {
  atomicWrite,
  fsErrorMessage,
  MAX_TEXT_FILE_BYTES,
  permissionBits,
  readOnlyReason,
  specialFileKind,
  writeTarget,
} from "./fs_util.ts";

const input = z.object({
  path: z.string().min(1).describe("File to write, relative to the workspace root or absolute."),
  content: z.string().describe("The complete new content of the file."),
});

function fail(content: string): ToolResult {
  return { content, isError: true };
}

/** The previous text of a file for the diff, when it is small UTF-8 text. */
async function previousText(path: string, info: Deno.FileInfo): Promise<string | undefined> {
  if (info.size > MAX_TEXT_FILE_BYTES) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(await Deno.readFile(path));
  } catch {
    return undefined;
  }
}

/** The `write_file` tool. */
export const writeFileTool: Tool = defineTool({
  name: "write_file",
  description: "Create a file or replace its whole content (UTF-8). Missing parent " +
    "directories are created. Prefer edit_file or multi_edit to change part of an existing " +
    "file; read an existing file before overwriting it.",
  input,
  readOnly: false,
  access: (args) => ({ rule: "Write", writes: [args.path] }),
  async run(args, ctx) {
    const target = await writeTarget(resolveToolPath(ctx.root, args.path));
    let existing: Deno.FileInfo | undefined;
    try {
      existing = await Deno.stat(target);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        return fail(`Cannot write ${args.path}: ${fsErrorMessage(error, args.path)}.`);
      }
    }
    if (existing?.isDirectory) {
      return fail(`Cannot write ${args.path}: it is a directory. Give a file path.`);
    }
    if (existing && !existing.isFile) {
      // Renaming over a FIFO or device would replace the node with a plain file.
      return fail(
        `Cannot write ${args.path}: it is ${specialFileKind(existing)}, not a regular file; ` +
          "write_file writes regular files only. Use bash to write to it.",
      );
    }
    if (!args.content.isWellFormed()) {
      return fail(
        `Cannot write ${args.path}: content contains an unpaired UTF-16 surrogate (half of a ` +
          "character such as an emoji), which cannot be written as UTF-8. Send whole characters.",
      );
    }
    const readOnly = existing ? await readOnlyReason(target, existing) : undefined;
    if (readOnly) {
      return fail(
        `Cannot write ${args.path}: ${readOnly}. The file is unchanged; if it should be ` +
          "replaced, make it writable first (e.g. chmod u+w with bash).",
      );
    }
    const before = existing ? await previousText(target, existing) : "";
    const data = new TextEncoder().encode(args.content);
    try {
      await Deno.mkdir(dirname(target), { recursive: true });
      await atomicWrite(target, data, { mode: existing ? permissionBits(existing) : undefined });
    } catch (error) {
      return fail(`Cannot write ${args.path}: ${fsErrorMessage(error, args.path)}.`);
    }
    const verb = existing ? "Overwrote" : "Created";
    const noun = data.length === 1 ? "byte" : "bytes";
    return {
      content: `${verb} ${args.path} (${data.length} ${noun})`,
      meta: {
        path: target,
        created: !existing,
        bytes: data.length,
        diff: before === undefined ? undefined : unifiedDiff(args.path, before, args.content),
      },
    };
  },
});

registerBuiltinTool(writeFileTool);
