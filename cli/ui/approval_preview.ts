/**
 * What an approval prompt shows of the call it asks about: for a file edit the diff it would
 * make, computed from the arguments and the file as it is now (the edit itself runs only after
 * the answer, through the tool); for `bash` the command once, where it runs and in which
 * sandbox. Read-only: nothing here writes.
 *
 * @module
 */
import type { ToolCall } from "../../providers/types.ts";
import { unifiedDiff } from "../../tools/builtin/diff_meta.ts";
import {
  applyEdit,
  decodeText,
  detectLineEnding,
  type TextEdit,
} from "../../tools/builtin/text_edit.ts";
import { MAX_TEXT_FILE_BYTES } from "../../tools/fs/mod.ts";
import { resolveToolPath } from "../../tools/paths.ts";
import { isNotFound } from "../../tools/workspace/errors.ts";
import type { Workspace } from "../../tools/workspace/types.ts";
import { findPreset } from "../../core/permission/mod.ts";

/** What the prompt shows besides the summary. */
export interface ApprovalPreview {
  /** A unified diff of the edit, when the call is a file edit that would apply. */
  diff?: string;
  /** Why no diff can be shown (the edit would fail, the file is binary, …). */
  note?: string;
  /** The shell command, shown once. */
  command?: string;
  /** Where the command runs. */
  cwd?: string;
  /** The boundary it runs in, in words: `workspace-write sandbox (bubblewrap), no network`. */
  sandbox?: string;
}

/** Where previews are computed. */
export interface PreviewContext {
  workspace: Workspace;
  /** Canonical workspace root: relative paths resolve against it, commands run in it. */
  root: string;
  /** The active permission mode, e.g. `ask`. */
  mode: string;
  /** `bubblewrap`, `seatbelt` or `none`. */
  backend: string;
  signal?: AbortSignal;
}

/** Arguments of a call as an object, or undefined when they are not valid JSON. */
function argumentsOf(call: ToolCall): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(call.arguments || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The text edits an `edit_file` or `multi_edit` call asks for; undefined for other calls. */
export function editsOf(name: string, args: Record<string, unknown>): TextEdit[] | undefined {
  const one = (e: unknown): TextEdit | undefined => {
    const o = e as Record<string, unknown> | null;
    if (!o || typeof o.old_string !== "string" || typeof o.new_string !== "string") return;
    return { old_string: o.old_string, new_string: o.new_string, replace_all: !!o.replace_all };
  };
  if (name === "edit_file") {
    const e = one(args);
    return e ? [e] : undefined;
  }
  if (name === "multi_edit" && Array.isArray(args.edits)) {
    const edits = args.edits.map(one);
    return edits.every((e) => e !== undefined) ? edits as TextEdit[] : undefined;
  }
  return undefined;
}

/** The file's current text, `""` when it does not exist, or a note why it cannot be shown. */
async function currentText(
  path: string,
  ctx: PreviewContext,
): Promise<{ text: string; exists: boolean } | { note: string }> {
  let bytes: Uint8Array;
  try {
    const info = await ctx.workspace.stat(path, { signal: ctx.signal });
    if (!info.isFile) return { note: "not a regular file" };
    if (info.size > MAX_TEXT_FILE_BYTES) return { note: "the file is too large to preview" };
    bytes = await ctx.workspace.readFile(path, { signal: ctx.signal });
  } catch (error) {
    if (isNotFound(error)) return { text: "", exists: false };
    return { note: `cannot read the file (${(error as Error).message})` };
  }
  const decoded = decodeText(bytes);
  if (!decoded.ok) return { note: decoded.error };
  return { text: decoded.value.text, exists: true };
}

/** Describes the sandbox `bash` runs in under `mode` on `backend`. */
export function sandboxText(mode: string, backend: string): string | undefined {
  const preset = findPreset(mode);
  if (!preset) return undefined;
  const network = preset.network ? "network on" : "no network";
  if (preset.sandbox === "none") return "no sandbox, network on";
  if (backend === "none") return `no OS sandbox on this platform, ${network}`;
  return `${preset.sandbox} sandbox (${backend}), ${network}`;
}

/** What the approval prompt for `call` shows; never throws. */
export async function approvalPreview(
  call: ToolCall,
  ctx: PreviewContext,
): Promise<ApprovalPreview> {
  const args = argumentsOf(call);
  if (!args) return {};
  if (call.name === "bash" && typeof args.command === "string") {
    return {
      command: args.command,
      cwd: ctx.root,
      ...(sandboxText(ctx.mode, ctx.backend)
        ? { sandbox: sandboxText(ctx.mode, ctx.backend) }
        : {}),
    };
  }
  if (typeof args.path !== "string" || !args.path) return {};
  const path = resolveToolPath(ctx.root, args.path);
  try {
    if (call.name === "write_file" && typeof args.content === "string") {
      const before = await currentText(path, ctx);
      if ("note" in before) return { note: before.note };
      const diff = unifiedDiff(args.path, before.text, args.content);
      return diff ? { diff } : { note: "the change is too large to preview" };
    }
    const edits = editsOf(call.name, args);
    if (!edits) return {};
    const before = await currentText(path, ctx);
    if ("note" in before) return { note: before.note };
    if (!before.exists) return { note: "the file does not exist; the edit will fail" };
    const eol = detectLineEnding(before.text);
    let text = before.text;
    for (const [i, edit] of edits.entries()) {
      const outcome = applyEdit(text, edit, eol);
      if (!outcome.ok) {
        return {
          note: `${edits.length > 1 ? `edit ${i + 1}: ` : ""}${outcome.error}; the edit will fail`,
        };
      }
      text = outcome.text;
    }
    const diff = unifiedDiff(args.path, before.text, text);
    return diff ? { diff } : { note: "the change is too large to preview" };
  } catch (error) {
    return { note: `no preview (${(error as Error)?.message ?? error})` };
  }
}
