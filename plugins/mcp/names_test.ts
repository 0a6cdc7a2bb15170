import assert from "node:assert/strict";
import {
  mcpCapabilityId,
  mcpToolName,
  parseResourceReference,
  resourceReference,
} from "./names.ts";

Deno.test("MCP tool names are mcp__<server>__<tool>, cleaned and at most 64 characters", () => {
  assert.equal(mcpToolName("github", "create_issue"), "mcp__github__create_issue");
  assert.equal(mcpToolName("my.server", "get sum/x"), "mcp__my_server__get_sum_x");
  const long = mcpToolName("server", "x".repeat(100));
  assert.equal(long.length, 64);
  assert.notEqual(long, mcpToolName("server", "x".repeat(101)));
  assert.equal(mcpCapabilityId("github", "create_issue"), "mcp:github:create_issue");
});

Deno.test("@<server>:<uri> references split at the first colon", () => {
  assert.deepEqual(parseResourceReference("@docs:file:///a/b.md"), {
    server: "docs",
    uri: "file:///a/b.md",
  });
  assert.equal(resourceReference("docs", "demo://x"), "@docs:demo://x");
  assert.equal(parseResourceReference("@someone"), undefined);
  assert.equal(parseResourceReference("@:x"), undefined);
  assert.equal(parseResourceReference("@a:"), undefined);
});
