/**
 * `edit_file`: one exact-text replacement in a file.
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
  old_string: z.string().describe(
    "Exact text to replace, copied from the file (without read_file line-number prefixes).",
  ),
  new_string: z.string().describe("Replacement text; must differ from old_string."),
  replace_all: z.boolean().default(false).describe(
    "Replace every occurrence instead of requiring exactly one.",
  ),
});

/** The `edit_file` tool. */
export const editFileTool: Tool = defineTool({
  name: "edit_file",
  description: "Replace exact text in an existing file. old_string must match the file " +
    "exactly, including whitespace and indentation, and must be unique unless replace_all " +
    "is true; add surrounding lines to make it unique. Line endings (CRLF) and encoding " +
    "(BOM, UTF-16) are preserved. On no match or several matches the file is left unchanged " +
    "and the error says why. For several changes to one file use multi_edit.",
  input,
  readOnly: false,
  // It reads the file too: whether old_string matches tells what the file holds.
  access: (args) => ({ rule: "Edit", reads: [args.path], writes: [args.path] }),
  run: (args, ctx) => editTextFile(ctx, { path: args.path, edits: [args], tool: "edit_file" }),
});

registerBuiltinTool(editFileTool);
