import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../tools/define.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { executeToolCall } from "./tool_exec.ts";

Deno.test("a call the provider marked as cut off is reported, never run", async () => {
  let ran = 0;
  const write = defineTool({
    name: "write_file",
    description: "Writes a file.",
    input: z.object({ path: z.string().optional() }),
    readOnly: false,
    run() {
      ran++;
      return Promise.resolve({ content: "written" });
    },
  });
  const result = await executeToolCall(
    {
      id: "c",
      name: "write_file",
      // Would decode as `{}` and pass validation if the marker were ignored.
      arguments: "",
      argumentsError: "This write_file call was cut off at the output token limit.",
    },
    {
      registry: new ToolRegistry([write as Tool]),
      context: {
        root: "/nonexistent",
        tempDir: "/nonexistent",
        shell: { launch: () => Promise.reject(new Error("no shell")) },
        settings: { bashTimeoutMs: 1000 },
      },
      signal: new AbortController().signal,
      timeoutMs: 1000,
    },
  );
  assert.equal(ran, 0);
  assert.equal(result.isError, true);
  assert.match(result.content, /^This write_file call was cut off at the output token limit\./);
  assert.match(result.content, /JSON Schema/);
});
