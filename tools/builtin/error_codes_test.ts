import assert from "node:assert/strict";
import type { Tool, ToolErrorCode } from "../types.ts";
import { bashTool } from "./bash.ts";
import { editFileTool } from "./edit_file.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { lsTool } from "./ls.ts";
import { moveFileTool } from "./move_file.ts";
import { multiEditTool } from "./multi_edit.ts";
import { readFileTool } from "./read_file.ts";
import { callTool, createTestWorkspace } from "./test_context.ts";
import { writeFileTool } from "./write_file.ts";

Deno.test("built-in tools name why they failed with a code", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "alpha\n");
  await ws.write("dir/b.txt", "beta\n");
  const cases: [Tool, Record<string, unknown>, ToolErrorCode][] = [
    [readFileTool, { path: "missing.txt" }, "not_found"],
    [readFileTool, { path: "dir" }, "wrong_type"],
    [readFileTool, { path: "a.txt", offset: 50 }, "invalid_arguments"],
    [lsTool, { path: "a.txt" }, "wrong_type"],
    [lsTool, { path: "nope" }, "not_found"],
    [globTool, { pattern: "*", path: "nope" }, "not_found"],
    [grepTool, { pattern: "x", path: "nope" }, "not_found"],
    [writeFileTool, { path: "dir", content: "x" }, "wrong_type"],
    [editFileTool, { path: "a.txt", old_string: "gamma", new_string: "delta" }, "conflict"],
    [editFileTool, { path: "missing.txt", old_string: "a", new_string: "b" }, "not_found"],
    [
      multiEditTool,
      { path: "a.txt", edits: [{ old_string: "gamma", new_string: "delta" }] },
      "conflict",
    ],
    [moveFileTool, { source: "nope", destination: "x" }, "not_found"],
    [moveFileTool, { source: "a.txt", destination: "./a.txt" }, "invalid_arguments"],
    [bashTool, { command: "exit 3" }, "failed"],
  ];
  for (const [tool, args, code] of cases) {
    const result = await callTool(tool, args, ws.ctx);
    assert.equal(result.isError, true, `${tool.name} ${JSON.stringify(args)}: ${result.content}`);
    assert.equal(result.code, code, `${tool.name} ${JSON.stringify(args)}: ${result.content}`);
  }
  const ok = await callTool(readFileTool, { path: "a.txt" }, ws.ctx);
  assert.equal(ok.code, undefined);
});
