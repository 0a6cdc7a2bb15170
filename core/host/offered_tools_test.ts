import assert from "node:assert/strict";
import type { BuiltTurn } from "../agent/agent.ts";
import type { OfferedTool } from "../store/records.ts";
import type { Tool, ToolContext } from "../../tools/types.ts";
import { type HostMcpTools, planTools, ToolNotices } from "./offered_tools.ts";

function tool(name: string, schema: Record<string, unknown> = { type: "object" }): Tool {
  return {
    name,
    description: `${name} tool`,
    schema,
    readOnly: false,
    execute: () => Promise.resolve({ content: `ran ${name}` }),
  };
}

const builtin = tool("read_file");
const liveA = tool("mcp__srv__a", { type: "object", properties: { z: {}, a: {} } });
const liveOther = tool("mcp__late__x");
const origins = new Map<Tool, { server: string; tool: string }>([
  [liveA, { server: "srv", tool: "a" }],
  [liveOther, { server: "late", tool: "x" }],
]);

function record(server: string, name: string, description = `${name} (recorded)`): OfferedTool {
  return {
    name: `mcp__${server}__${name}`,
    description,
    parameters: { type: "object" },
    readOnly: true,
    server,
    tool: name,
  };
}

/** An MCP side that knows the server "srv" only. */
const mcp: HostMcpTools = {
  toolOrigin: (t) => origins.get(t),
  restoreTools: (recorded) =>
    recorded.filter((r) => r.server === "srv").map((r) => ({
      ...tool(r.name, r.parameters),
      description: r.description,
    })),
};

Deno.test("without a record an agent offers the catalogue and records its MCP tools canonically", () => {
  const planned = planTools({ catalogue: [builtin, liveA], mcp });
  assert.deepEqual(planned.tools, [builtin, liveA]);
  assert.deepEqual(planned.warnings, []);
  const recorded = planned.records.get(liveA)!;
  assert.equal(
    JSON.stringify(recorded.parameters),
    '{"properties":{"a":{},"z":{}},"type":"object"}',
  );
  assert.deepEqual([recorded.server, recorded.tool], ["srv", "a"]);
  assert.equal(planned.records.get(builtin), undefined);
});

Deno.test("with a record the recorded MCP tools replace the live ones; gone and unrecorded servers are reported", async () => {
  const planned = planTools({
    catalogue: [builtin, liveA, liveOther],
    mcp,
    recorded: [record("srv", "a"), record("old", "b")],
  });
  assert.deepEqual(planned.tools.map((t) => t.name), ["read_file", "mcp__srv__a", "mcp__old__b"]);
  // The recorded bytes, not the live ones.
  assert.equal(planned.tools[1].description, "a (recorded)");
  assert.deepEqual(planned.tools[2].schema, { type: "object" });
  const gone = await planned.tools[2].execute({}, {} as ToolContext);
  assert.equal(gone.isError, true);
  assert.equal(gone.code, "unavailable");
  assert.match(gone.content, /MCP server "old" is not declared any more.*reasonix mcp add old/);
  assert.equal(planned.warnings.length, 2);
  assert.match(planned.warnings[0], /MCP server "old" is not declared any more.*mcp__old__b/);
  assert.match(planned.warnings[1], /MCP server "late" was not ready.*use_capability/);
  assert.deepEqual(planned.records.get(planned.tools[2]), record("old", "b"));
});

Deno.test("a host without MCP still offers recorded tools, as placeholders", () => {
  const planned = planTools({ catalogue: [builtin], recorded: [record("srv", "a")] });
  assert.deepEqual(planned.tools.map((t) => t.name), ["read_file", "mcp__srv__a"]);
  assert.match(planned.warnings[0], /MCP server "srv" is not declared any more/);
});

Deno.test("queued tool reports ride the next turn as notices, once", async () => {
  const notices = new ToolNotices();
  const turn: BuiltTurn = { content: "hi", events: [{ type: "text", text: "own" }] };
  const source = notices.around({ build: () => Promise.resolve(turn) })!;
  notices.push("server changed");
  const signal = new AbortController().signal;
  const first = await source.build({ text: "hi" }, undefined as never, { signal });
  assert.deepEqual(first.events, [
    { type: "notice", level: "warning", message: "server changed" },
    { type: "text", text: "own" },
  ]);
  const second = await source.build({ text: "hi" }, undefined as never, { signal });
  assert.equal(second, turn);
});
