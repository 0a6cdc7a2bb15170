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
import type { Tool, ToolErrorCode, ToolResult } from "../types.ts";
import { isNotFound } from "../workspace/errors.ts";
import type { FileInfo, Workspace } from "../workspace/types.ts";
import { unifiedDiff } from "./diff_meta.ts";
import {
  atomicWrite,
  fsErrorMessage,
  MAX_TEXT_FILE_BYTES,
  permissionBits,
  readOnlyReason,
  specialFileKind,
  writeTarget,
} from "../fs/mod.ts";

const input = z.object({
  path: z.string().min(1).describe("File to write."),
  content: z.string().describe("The complete new content of the file."),
});

function fail(content: string, code: ToolErrorCode): ToolResult {
  return { content, isError: true, code };
}

/** The previous text of a file for the diff, when it is small UTF-8 text. */
async function previousText(
  ws: Workspace,
  path: string,
  info: FileInfo,
): Promise<string | undefined> {
  if (info.size > MAX_TEXT_FILE_BYTES) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(await ws.readFile(path));
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
    const ws = ctx.workspace;
    const on = { workspace: ws };
    const target = await writeTarget(resolveToolPath(ctx.root, args.path), on);
    let existing: FileInfo | undefined;
    try {
      existing = await ws.stat(target);
    } catch (error) {
      if (!isNotFound(error)) {
        return fail(`Cannot write ${args.path}: ${fsErrorMessage(error, args.path)}.`, "io");
      }
    }
    if (existing?.isDirectory) {
      return fail(`Cannot write ${args.path}: it is a directory. Give a file path.`, "wrong_type");
    }
    if (existing && !existing.isFile) {
      // Renaming over a FIFO or device would replace the node with a plain file.
      return fail(
        `Cannot write ${args.path}: it is ${specialFileKind(existing)}, not a regular file; ` +
          "write_file writes regular files only. Use bash to write to it.",
        "wrong_type",
      );
    }
    if (!args.content.isWellFormed()) {
      return fail(
        `Cannot write ${args.path}: content contains an unpaired UTF-16 surrogate (half of a ` +
          "character such as an emoji), which cannot be written as UTF-8. Send whole characters.",
        "invalid_arguments",
      );
    }
    const readOnly = existing ? await readOnlyReason(target, existing, on) : undefined;
    if (readOnly) {
      return fail(
        `Cannot write ${args.path}: ${readOnly}. The file is unchanged; if it should be ` +
          "replaced, make it writable first (e.g. chmod u+w with bash).",
        "permission_denied",
      );
    }
    const before = existing ? await previousText(ws, target, existing) : "";
    const data = new TextEncoder().encode(args.content);
    try {
      await ws.mkdir(dirname(target), { recursive: true });
      await atomicWrite(target, data, {
        ...on,
        mode: existing ? permissionBits(existing) : undefined,
      });
    } catch (error) {
      return fail(`Cannot write ${args.path}: ${fsErrorMessage(error, args.path)}.`, "io");
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
