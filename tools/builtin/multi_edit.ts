/**
 * `multi_edit`: several exact-text replacements in one file, all or nothing.
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { registerBuiltinTool } from "../registry.ts";
import type { Tool } from "../types.ts";
import { editTextFile } from "./text_edit.ts";

const input = z.object({
  path: z.string().min(1).describe("File to edit."),
  edits: z.array(z.object({
    old_string: z.string().describe("Exact text to replace."),
    new_string: z.string().describe("Replacement text."),
    replace_all: z.boolean().default(false).describe("Replace every occurrence."),
  })).min(1).describe("Replacements, applied in order; each sees the result of the previous."),
});

/** The `multi_edit` tool. */
export const multiEditTool: Tool = defineTool({
  name: "multi_edit",
  description: "Apply several exact-text replacements to one file in a single call. Edits " +
    "run in order, each against the result of the previous one, with edit_file's rules " +
    "(exact, unique unless replace_all, line endings and encoding preserved). All or " +
    "nothing: if any edit fails, the file is unchanged and the error names the failing edit.",
  input,
  readOnly: false,
  // It reads the file too: whether an old_string matches tells what the file holds.
  access: (args) => ({ rule: "Edit", reads: [args.path], writes: [args.path] }),
  run: (args, ctx) => editTextFile(ctx, { path: args.path, edits: args.edits, tool: "multi_edit" }),
});

registerBuiltinTool(multiEditTool);
