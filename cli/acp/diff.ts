/**
 * The diff of a file edit as ACP shows it (`{ type: "diff", path, oldText, newText }`),
 * computed from the call's arguments and the file as it is before the call runs. Read-only:
 * the edit itself happens only through the tool, after any approval.
 *
 * @module
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { applyPatch, parsePatch, reversePatch } from "diff";
import type { ToolCall } from "../../providers/types.ts";
import { applyEdit, decodeText, detectLineEnding } from "../../tools/builtin/text_edit.ts";
import { MAX_TEXT_FILE_BYTES } from "../../tools/fs/mod.ts";
import { resolveToolPath } from "../../tools/paths.ts";
import { isNotFound } from "../../tools/workspace/errors.ts";
import type { Workspace } from "../../tools/workspace/types.ts";
import { editsOf } from "../ui/approval_preview.ts";
import { callArguments } from "./updates.ts";

/** Where the file is read. */
export interface DiffContext {
  workspace: Workspace;
  /** Canonical workspace root: relative paths resolve against it. */
  root: string;
  signal: AbortSignal;
}

/** The file's text now; `null` when it does not exist; undefined when it cannot be shown. */
async function currentText(path: string, ctx: DiffContext): Promise<string | null | undefined> {
  try {
    const info = await ctx.workspace.stat(path, { signal: ctx.signal });
    if (!info.isFile || info.size > MAX_TEXT_FILE_BYTES) return undefined;
    const decoded = decodeText(await ctx.workspace.readFile(path, { signal: ctx.signal }));
    return decoded.ok ? decoded.value.text : undefined;
  } catch (error) {
    return isNotFound(error) ? null : undefined;
  }
}

/**
 * The diff `call` would make, for `write_file`, `edit_file` and `multi_edit`; undefined for
 * other tools and for an edit that would not apply (the tool's own error says why). Never
 * throws.
 */
export async function editDiff(
  call: ToolCall,
  ctx: DiffContext,
): Promise<ToolCallContent | undefined> {
  const args = callArguments(call);
  if (typeof args.path !== "string" || args.path === "") return undefined;
  const path = resolveToolPath(ctx.root, args.path);
  try {
    if (call.name === "write_file") {
      if (typeof args.content !== "string") return undefined;
      const before = await currentText(path, ctx);
      if (before === undefined) return undefined;
      return { type: "diff", path, oldText: before, newText: args.content };
    }
    const edits = editsOf(call.name, args);
    if (!edits) return undefined;
    const before = await currentText(path, ctx);
    if (typeof before !== "string") return undefined;
    const eol = detectLineEnding(before);
    let text = before;
    for (const edit of edits) {
      const outcome = applyEdit(text, edit, eol);
      if (!outcome.ok) return undefined;
      text = outcome.text;
    }
    return { type: "diff", path, oldText: before, newText: text };
  } catch {
    return undefined;
  }
}

/**
 * The text a file had before an edit, from the text it has now and the edit's unified diff
 * (`ToolResult.meta.diff`); undefined when the diff does not apply backwards (the file changed
 * again since, or line endings the diff normalized).
 */
export function textBefore(now: string, unified: string): string | undefined {
  const [patch] = parsePatch(unified);
  if (!patch || patch.hunks.length === 0) return undefined;
  const before = applyPatch(now, reversePatch(patch));
  return before === false ? undefined : before;
}
