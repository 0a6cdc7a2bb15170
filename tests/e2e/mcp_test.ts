/**
 * End to end through the real CLI: `reasonix run` with an MCP server from npm (the fake LLM
 * calls its tool and sees the result in the next request), and `reasonix mcp add|list|get|
 * remove` editing the right files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { EVERYTHING, npmServerArgs } from "../mcp/servers.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

Deno.test("reasonix run: the model calls an MCP tool and its result reaches the next request", async () => {
  const fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "mcp__everything__echo", arguments: '{"message":"from mcp"}' }] },
      { text: "The server echoed it." },
    ],
  });
  const repo = await makeRepo({});
  const home = await makeHome(
    fake.url,
    `
[[mcp.servers]]
name = "everything"
command = ${JSON.stringify(Deno.execPath())}
args = ${JSON.stringify(npmServerArgs(EVERYTHING, "stdio"))}
`,
  );
  try {
    const result = await runReasonix(["run", "--json", "echo something"], {
      cwd: repo,
      home,
      // A loaded test machine may need more than the default 3 s to start the server.
      env: { REASONIX_MCP_WAIT_MS: "30000" },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).result, "The server echoed it.");
    const tools = (fake.requests[0].body as { tools: { function: { name: string } }[] }).tools
      .map((t) => t.function.name);
    assert.ok(tools.includes("mcp__everything__echo"));
    const messages = (fake.requests[1].body as { messages: { role: string; content: string }[] })
      .messages;
    assert.equal(messages.at(-1)?.role, "tool");
    assert.equal(messages.at(-1)?.content, "Echo: from mcp");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("reasonix mcp add, list, get and remove follow the declaration precedence", async () => {
  const repo = await makeRepo({
    ".mcp.json": JSON.stringify({ mcpServers: { shared: { command: "from-mcp-json" } } }),
  });
  const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-home-" });
  await Deno.writeTextFile(join(home, "config.toml"), "# user settings\n");
  const run = (...args: string[]) => runReasonix(["mcp", ...args], { cwd: repo, home });
  try {
    let r = await run(
      "add",
      "--env",
      "TOKEN=${EVERYTHING_TOKEN}",
      "everything",
      Deno.execPath(),
      ...npmServerArgs(EVERYTHING, "stdio"),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /added MCP server "everything" in .*config\.toml/);
    const user = await Deno.readTextFile(join(home, "config.toml"));
    assert.ok(user.startsWith("# user settings\n"));
    assert.match(user, /TOKEN = "\$\{EVERYTHING_TOKEN\}"/);

    r = await run("add", "--scope", "project", "web", "http://127.0.0.1:9/mcp", "-H", "X-Key: v");
    assert.equal(r.code, 0, r.stderr);
    assert.match(await Deno.readTextFile(join(repo, "reasonix.toml")), /name = "web"/);

    // Editing a server declared in .mcp.json writes back to .mcp.json.
    r = await run("add", "--scope", "project", "shared", "echo");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /replaced MCP server "shared" in .*\.mcp\.json/);

    r = await runReasonix(["mcp", "list", "--json"], {
      cwd: repo,
      home,
      env: { EVERYTHING_TOKEN: "t" },
    });
    assert.equal(r.code, 0, r.stderr);
    type Row = { name: string; phase: string; source: string; tools: number; listener: string };
    const servers = Object.fromEntries(
      (JSON.parse(r.stdout).servers as Row[]).map((s) => [s.name, s]),
    );
    assert.equal(servers.everything.phase, "ready");
    assert.equal(servers.everything.listener, "listening");
    assert.ok(servers.everything.tools > 5);
    assert.equal(servers.shared.source, "mcp_json");
    assert.equal(servers.web.source, "project");

    r = await run("get", "web");
    assert.match(r.stdout, /header: +X-Key: <redacted>/);
    assert.doesNotMatch(r.stdout, /X-Key: v\b/);

    // Removing the project declaration of a name the user also declares exposes the user one.
    r = await run("add", "web", "http://127.0.0.1:9/user", "--scope", "user");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /also declared in .*reasonix\.toml, which takes precedence/);
    r = await run("remove", "web");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /removed MCP server "web" from .*reasonix\.toml/);
    assert.match(r.stdout, /"web" is now declared by .*config\.toml/);
    r = await run("remove", "web");
    assert.equal(r.code, 0, r.stderr);
    r = await run("remove", "web");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no MCP server "web"/);
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("reasonix run: a server that dies at start is named with its exit status and stderr; the run goes on", async () => {
  const fake = await startFakeLlm({ script: [{ text: "Done without it." }] });
  const repo = await makeRepo({});
  const home = await makeHome(
    fake.url,
    `
[[mcp.servers]]
name = "broken"
command = "sh"
args = ["-c", "echo 'boom: missing config' >&2; exit 3"]
`,
  );
  try {
    const result = await runReasonix(["run", "do it"], {
      cwd: repo,
      home,
      env: { REASONIX_MCP_WAIT_MS: "30000" },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /warning: MCP server "broken" failed to start \([a-z_]+\): .*exit.*3.*boom: missing config/,
    );
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
