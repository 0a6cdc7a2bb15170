/**
 * How MCP calls are bounded and retried through the agent's own tool pipeline, against the
 * SDK fixture server over stdio: the pipeline's timeout follows the MCP call timeout (not the
 * agent's default tool timeout), and a server that failed at start-up gets a fresh attempt when
 * one of its tools is called through `use_capability`, which `/mcp` then shows.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { executeToolCall } from "../../core/agent/tool_exec.ts";
import { McpHost } from "../../plugins/mcp/mod.ts";
import { CapabilityHub, useCapabilityTool } from "../../tools/capability.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import type { Tool, ToolResult } from "../../tools/types.ts";
import { mcpView } from "../../cli/ui/mcp_view.ts";
import { entryOf, fixtureArgs, stdioSpec } from "./servers.ts";

const CONTEXT = {
  root: "/nonexistent",
  tempDir: "/nonexistent",
  shell: { launch: () => Promise.reject(new Error("no shell")) },
  settings: { bashTimeoutMs: 1000 },
};

function call(tools: Tool[], name: string, args: unknown, timeoutMs: number): Promise<ToolResult> {
  return executeToolCall({ id: "c", name, arguments: JSON.stringify(args) }, {
    registry: new ToolRegistry(tools),
    context: CONTEXT,
    signal: new AbortController().signal,
    timeoutMs,
  });
}

Deno.test("an MCP call is bounded by the MCP call timeout, not by a shorter agent tool timeout", async () => {
  const stateDir = await Deno.makeTempDir({ prefix: "reasonix-mcp-bounds-" });
  const host = new McpHost({
    entries: [entryOf(stdioSpec("fx", Deno.execPath(), fixtureArgs()))],
    clientInfo: { name: "reasonix-test", version: "0.0.0" },
    callTimeoutMs: 20_000,
    stateDir,
  });
  try {
    host.start();
    await host.waitForStartup({ timeoutMs: 30_000 });
    const hub = new CapabilityHub();
    hub.addSource(host.capabilitySource());
    const tools = [...host.directTools(), useCapabilityTool(hub)];
    // The agent's default is 400 ms here; the MCP call timeout (20 s) governs MCP calls.
    const direct = await call(tools, "mcp__fx__sleep", { ms: 1200 }, 400);
    assert.equal(direct.content, "slept 1200");
    const viaCapability = await call(tools, "use_capability", {
      capability: "mcp:fx:sleep",
      arguments: { ms: 1200 },
    }, 400);
    assert.equal(viaCapability.content, "slept 1200");
    // Other tools keep the agent's bound.
    const listing = await call(tools, "use_capability", {}, 400);
    assert.equal(listing.isError, undefined);
  } finally {
    await host.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});

Deno.test("a server that failed at start-up gets a fresh attempt when its tool is called, shown in /mcp", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-mcp-late-" });
  const gate = join(dir, "go");
  const stateDir = join(dir, "state");
  const host = new McpHost({
    entries: [entryOf(stdioSpec("toolate", Deno.execPath(), fixtureArgs(), {
      env: { FIXTURE_REQUIRE_FILE: gate },
      startupTimeoutMs: 30_000,
    }))],
    clientInfo: { name: "reasonix-test", version: "0.0.0" },
    callTimeoutMs: 20_000,
    stateDir,
  });
  try {
    host.start();
    await host.waitForStartup({ timeoutMs: 30_000 });
    const view = mcpView(host);
    assert.equal(view.servers()[0].phase, "failed");
    assert.match(view.servers()[0].detail ?? "", /exited with status 3/);
    const hub = new CapabilityHub();
    hub.addSource(host.capabilitySource());
    const tools = [useCapabilityTool(hub)];
    // The server can start now; nothing retries it until one of its tools is called.
    await Deno.writeTextFile(gate, "");
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(view.servers()[0].phase, "failed");
    const result = await call(tools, "use_capability", {
      capability: "mcp:toolate:echo",
      arguments: { text: "made it" },
    }, 60_000);
    assert.equal(result.content, "made it");
    const [server] = view.servers();
    assert.equal(server.phase, "ready");
    assert.equal(server.error, undefined);
    assert.ok(server.tools > 0);
    const unknown = await call(tools, "use_capability", {
      capability: "mcp:toolate:no_such_tool",
      arguments: {},
    }, 60_000);
    assert.equal(unknown.isError, true);
    assert.match(unknown.content, /Unknown capability/);
  } finally {
    await host.close();
    await Deno.remove(dir, { recursive: true });
  }
});
