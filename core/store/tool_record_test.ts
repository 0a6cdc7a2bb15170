import assert from "node:assert/strict";
import { parseTranscript } from "./transcript.ts";
import type { OfferedTool } from "./records.ts";

const meta = { id: "s1", created: "2026-11-30T00:00:00.000Z", workspace: "/w", model: "p/m" };

function tool(name: string, description = "d"): OfferedTool {
  return {
    name: `mcp__srv__${name}`,
    description,
    parameters: { properties: {}, type: "object" },
    readOnly: true,
    server: "srv",
    tool: name,
  };
}

function lines(...records: unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join("\n") + "\n";
}

Deno.test("the MCP tools a session offered come back from its transcript; the last record wins", () => {
  const loaded = parseTranscript(lines(
    { t: "session", v: 1, meta },
    { t: "tools", tools: [tool("a")] },
    { t: "msg", i: 0, m: { role: "user", content: "hi" } },
    { t: "tools", tools: [tool("a", "newer"), tool("b")] },
  ))!;
  assert.deepEqual(loaded.tools, [tool("a", "newer"), tool("b")]);
  assert.equal(loaded.skippedLines, 0);
});

Deno.test("a transcript without a tools record has none, and a damaged one is skipped", () => {
  assert.equal(parseTranscript(lines({ t: "session", v: 1, meta }))!.tools, undefined);
  const damaged = parseTranscript(lines(
    { t: "session", v: 1, meta },
    { t: "tools", tools: [tool("a")] },
    { t: "tools", tools: [{ name: "mcp__srv__b", description: "d" }] },
  ))!;
  assert.deepEqual(damaged.tools, [tool("a")]);
  assert.equal(damaged.skippedLines, 1);
});
