import assert from "node:assert/strict";
import { type Capability, CapabilityHub, useCapabilityTool } from "./capability.ts";
import type { ToolContext } from "./types.ts";

const ctx = {} as ToolContext;

function capability(id: string, readOnly = true): Capability {
  return {
    id,
    description: `does ${id}`,
    schema: { type: "object", properties: { x: { type: "string" } } },
    readOnly,
    invoke: (args) => Promise.resolve({ content: `${id} got ${JSON.stringify(args)}` }),
  };
}

Deno.test("use_capability lists fixed and live capabilities, sorted", async () => {
  const hub = new CapabilityHub();
  hub.register(capability("session:tool_result"));
  let live = [capability("mcp:b:t", false)];
  hub.addSource({ list: () => live });
  const tool = useCapabilityTool(hub);
  const listed = await tool.execute({}, ctx);
  assert.match(listed.content, /^mcp:b:t: does mcp:b:t\n.*\nsession:tool_result \(read-only\)/s);
  live = [];
  assert.doesNotMatch((await tool.execute({}, ctx)).content, /mcp:b:t/);
});

Deno.test("use_capability calls a capability and reports unknown ids with the list", async () => {
  const hub = new CapabilityHub();
  hub.register(capability("session:tool_result"));
  const tool = useCapabilityTool(hub);
  const ok = await tool.execute({ capability: "session:tool_result", arguments: { x: "1" } }, ctx);
  assert.equal(ok.content, 'session:tool_result got {"x":"1"}');
  const bad = await tool.execute({ capability: "nope" }, ctx);
  assert.equal(bad.isError, true);
  assert.match(bad.content, /Unknown capability "nope"/);
});

Deno.test("use_capability declares the capability's rule and read-only flag per call", () => {
  const hub = new CapabilityHub();
  hub.register({ ...capability("mcp:gh:create", false), rule: "mcp__gh__create" });
  const tool = useCapabilityTool(hub);
  assert.deepEqual(tool.access!({ capability: "mcp:gh:create" }), {
    rule: "mcp__gh__create",
    readOnly: false,
  });
  assert.deepEqual(tool.access!({}), { rule: "use_capability", readOnly: true });
});

Deno.test("duplicate capability ids are refused", () => {
  const hub = new CapabilityHub();
  hub.register(capability("a"));
  assert.throws(() => hub.register(capability("a")), /already registered/);
});
