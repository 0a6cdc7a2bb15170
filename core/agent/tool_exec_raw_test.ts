import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../tools/define.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import { MAX_RAW_CONTENT_BYTES, type Tool, type ToolResult } from "../../tools/types.ts";
import { MAX_TOOL_CONTENT_BYTES } from "./bound.ts";
import { boundResult, executeToolCall } from "./tool_exec.ts";

const bytes = (s: string): number => new TextEncoder().encode(s).length;

/** Runs a tool (an MCP tool, say) that returns `result`, through the pipeline. */
async function run(result: ToolResult): Promise<ToolResult> {
  const tool = defineTool({
    name: "remote",
    description: "Returns a fixed result.",
    input: z.object({}),
    readOnly: true,
    run: () => Promise.resolve(result),
  });
  return await executeToolCall({ id: "c", name: "remote", arguments: "{}" }, {
    registry: new ToolRegistry([tool as Tool]),
    context: {
      root: "/nonexistent",
      tempDir: "/nonexistent",
      shell: { launch: () => Promise.reject(new Error("no shell")) },
      settings: { bashTimeoutMs: 1000 },
    },
    signal: new AbortController().signal,
    timeoutMs: 10_000,
  });
}

Deno.test("any tool's output over 32 KB is bounded, and the whole of it kept as raw", async () => {
  const text = "x€".repeat(100_000); // 400,000 bytes
  const result = await run({ content: text });
  assert.ok(bytes(result.content) <= MAX_TOOL_CONTENT_BYTES);
  assert.match(result.content, /bytes in total; the middle was cut/);
  assert.equal(result.raw, text);
  const small = await run({ content: "short" });
  assert.equal(small.content, "short");
  assert.equal(small.raw, undefined);
});

Deno.test("raw content over the cap keeps its start and the content says what was kept", async () => {
  const text = "y".repeat(MAX_RAW_CONTENT_BYTES + 1000);
  const result = await run({ content: text });
  assert.ok(bytes(result.content) <= MAX_TOOL_CONTENT_BYTES, `${bytes(result.content)}`);
  const marker = "\n[cut here: the remaining bytes were not kept]";
  const kept = MAX_RAW_CONTENT_BYTES - marker.length;
  assert.ok(
    result.content.endsWith(
      `\n[the first ${kept} bytes of the full result ` +
        `(${text.length} bytes) are kept for \`session:tool_result\`; the rest is not kept]`,
    ),
  );
  assert.equal(result.raw, "y".repeat(kept) + marker);
  assert.equal(bytes(result.raw!), MAX_RAW_CONTENT_BYTES);
});

Deno.test("a tool's own raw text is capped the same way, never splitting a character", () => {
  const marker = "\n[cut here: the remaining bytes were not kept]";
  // Room for 6 bytes of text: the cut falls inside the second €.
  const own = boundResult({ content: "short view", raw: "ab€€" + "z".repeat(100) }, {
    rawMaxBytes: marker.length + 6,
  });
  assert.equal(own.raw, "ab€" + marker);
  assert.equal(
    own.content,
    "short view\n[the first 5 bytes of the full result (108 bytes) are kept for " +
      "`session:tool_result`; the rest is not kept]",
  );
  const within = boundResult({ content: "short view", raw: "ab€" }, { rawMaxBytes: 5 });
  assert.deepEqual(within, { content: "short view", raw: "ab€" });
});
