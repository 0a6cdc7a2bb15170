import assert from "node:assert/strict";
import { McpHost } from "../../plugins/mcp/mod.ts";
import {
  entryOf,
  fixtureArgs,
  freePort,
  httpSpec,
  startChaosServer,
  stdioSpec,
} from "../../tests/mcp/servers.ts";
import { mcpView } from "./mcp_view.ts";
import { mcpLines } from "./panels.ts";

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

Deno.test("/mcp shows protocol, listener phase, reconnects and the error class, never a session id", async () => {
  const server = await startChaosServer();
  const stateDir = await Deno.makeTempDir({ prefix: "reasonix-mcp-view-" });
  const host = new McpHost({
    entries: [
      entryOf(httpSpec("web", server.url)),
      entryOf(httpSpec("gone", `http://127.0.0.1:${freePort()}/mcp`)),
    ],
    clientInfo: { name: "reasonix-test", version: "0.0.0" },
    callTimeoutMs: 30_000,
    stateDir,
  });
  try {
    host.start();
    await host.waitForStartup({ timeoutMs: 60_000 });
    // One expiry: the next call rebuilds the session.
    await server.control("expire");
    await host.callTool({ server: "web", tool: "echo", args: { text: "x" } });
    const view = mcpView(host);
    const lines = mcpLines(view.servers(), view.prompts(), view.resources());
    const web = lines.indexOf(lines.find((l) => l.startsWith("● web "))!);
    assert.match(lines[web], /^● web ready · http · 4 tools/);
    assert.equal(lines[web + 1], "    protocol 2025-11-25 · listener listening · reconnects 1");
    const gone = lines.indexOf(lines.find((l) => l.startsWith("● gone "))!);
    assert.match(lines[gone], /^● gone failed · http · 0 tools .* · network$/);
    assert.equal(lines[gone + 1], "    listener none · reconnects 0");
    const all = lines.join("\n");
    assert.doesNotMatch(all, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/, "no session id");
    assert.doesNotMatch(all, /127\.0\.0\.1/, "no URL");
  } finally {
    await host.close();
    await server.stop();
    await Deno.remove(stateDir, { recursive: true });
  }
});
