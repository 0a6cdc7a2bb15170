import assert from "node:assert/strict";
import { McpHost } from "../../plugins/mcp/mod.ts";
import { entryOf, fixtureArgs, stdioSpec } from "../../tests/mcp/servers.ts";
import { mcpView } from "./mcp_view.ts";

Deno.test("the UI's MCP view reads status, prompts and resources from a real server", async () => {
  const stateDir = await Deno.makeTempDir({ prefix: "reasonix-mcp-view-" });
  const host = new McpHost({
    entries: [entryOf(stdioSpec("fix", Deno.execPath(), fixtureArgs()))],
    clientInfo: { name: "reasonix-test", version: "0.0.0" },
    callTimeoutMs: 30_000,
    stateDir,
  });
  try {
    host.start();
    await host.waitForStartup({ timeoutMs: 60_000 });
    const view = mcpView(host);
    const [server] = view.servers();
    assert.equal(server.name, "fix");
    assert.equal(server.phase, "ready");
    assert.equal(server.transport, "stdio");
    assert.equal(server.prompts, 3);
    assert.equal(server.resources, 3);
    const greet = view.prompts().find((p) => p.prompt === "greet");
    assert.deepEqual(greet, {
      command: "mcp__fix__greet",
      server: "fix",
      prompt: "greet",
      description: "Prompt greet.",
      arguments: [{ name: "who", required: true }],
    });
    const signal = new AbortController().signal;
    assert.equal(
      await view.getPrompt({ server: "fix", prompt: "greet", args: { who: "Ada" }, signal }),
      "Hello, Ada!",
    );
    assert.deepEqual(view.resources().map((r) => r.uri), [
      "fixture://a",
      "fixture://b",
      "fixture://c",
    ]);
    assert.equal(
      await view.readResource("fix", "fixture://b", { signal }),
      "content of fixture://b",
    );
  } finally {
    await host.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});
