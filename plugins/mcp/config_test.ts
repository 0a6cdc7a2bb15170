import assert from "node:assert/strict";
import { join } from "node:path";
import {
  checkDeclaration,
  defaultConcurrency,
  effectiveDeclarations,
  hasStaticAuthorization,
  loadMcpDeclarations,
  McpConfigFileError,
  resolveEntries,
  serversFromMcpJson,
  serversFromToml,
  type VarExpander,
} from "./config.ts";

const USER = { kind: "user" as const, file: "/home/config.toml" };

async function project(files: Record<string, string>): Promise<{ home: string; cwd: string }> {
  const home = await Deno.makeTempDir();
  const cwd = await Deno.makeTempDir();
  for (const [name, text] of Object.entries(files)) {
    const dir = name.startsWith("home/") ? home : cwd;
    await Deno.writeTextFile(join(dir, name.replace(/^(home|cwd)\//, "")), text);
  }
  return { home, cwd };
}

async function cleanup(dirs: { home: string; cwd: string }): Promise<void> {
  await Deno.remove(dirs.home, { recursive: true });
  await Deno.remove(dirs.cwd, { recursive: true });
}

const plain: VarExpander = (text) => text;

Deno.test("[[mcp.servers]] infers the transport and reads streamable-http as http", () => {
  const warnings: string[] = [];
  const servers = serversFromToml(
    {
      root: {
        mcp: {
          servers: [
            { name: "a", command: "npx", args: ["-y", "pkg"] },
            { name: "b", url: "https://x.example/mcp" },
            { name: "c", type: "streamable-http", url: "https://y.example/mcp" },
            { name: "d", type: "sse", url: "https://z.example/sse" },
          ],
        },
      },
    },
    USER,
    warnings,
  );
  assert.deepEqual(warnings, []);
  assert.deepEqual(servers.map((s) => [s.name, s.type]), [
    ["a", "stdio"],
    ["b", "http"],
    ["c", "http"],
    ["d", "sse"],
  ]);
});

Deno.test("an invalid server declaration is skipped with a warning, the others stay", () => {
  const warnings: string[] = [];
  const servers = serversFromToml(
    {
      root: {
        mcp: {
          servers: [
            { name: "ok", command: "x" },
            { name: "bad name", command: "x" },
            { name: "nourl", type: "http" },
            { name: "typo", command: "x", comand: "y" },
            { name: "ok", command: "again" },
          ],
        },
      },
    },
    USER,
    warnings,
  );
  assert.deepEqual(servers.map((s) => s.name), ["ok"]);
  assert.equal(warnings.length, 4);
  assert.match(warnings.join("\n"), /"bad name"/);
  assert.match(warnings.join("\n"), /nourl.*no url/);
  assert.match(warnings.join("\n"), /unknown key\(s\) comand/);
  assert.match(warnings.join("\n"), /declared twice/);
});

Deno.test(".mcp.json uses Claude Code's mcpServers schema", () => {
  const warnings: string[] = [];
  const servers = serversFromMcpJson(
    JSON.stringify({
      mcpServers: {
        fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] },
        remote: { type: "http", url: "https://mcp.example/mcp", headers: { "X-Key": "${KEY}" } },
      },
    }),
    { kind: "mcp_json", file: "/p/.mcp.json" },
    warnings,
  );
  assert.deepEqual(warnings, []);
  assert.deepEqual(servers.map((s) => [s.name, s.type, s.source.kind]), [
    ["fs", "stdio", "mcp_json"],
    ["remote", "http", "mcp_json"],
  ]);
  assert.deepEqual(servers[1].headers, { "X-Key": "${KEY}" });
});

Deno.test("a .mcp.json that is not an object says so instead of being ignored in silence", () => {
  for (const text of ["[1,2]", '"servers"', "null"]) {
    const warnings: string[] = [];
    const servers = serversFromMcpJson(text, { kind: "mcp_json", file: "/p/.mcp.json" }, warnings);
    assert.deepEqual(servers, []);
    assert.deepEqual(warnings, ['/p/.mcp.json: must be a JSON object with "mcpServers"; ignored']);
  }
});

Deno.test("project reasonix.toml beats .mcp.json beats the user config; removal exposes the next", async () => {
  const dirs = await project({
    "home/config.toml": '[[mcp.servers]]\nname = "s"\ncommand = "user"\n\n' +
      '[[mcp.servers]]\nname = "only-user"\ncommand = "u"\n',
    "cwd/.mcp.json": JSON.stringify({ mcpServers: { s: { command: "json" } } }),
    "cwd/reasonix.toml": '[[mcp.servers]]\nname = "s"\ncommand = "project"\n',
  });
  try {
    let set = await loadMcpDeclarations(dirs);
    const effective = effectiveDeclarations(set);
    assert.deepEqual(effective.map((e) => [e.declaration.name, e.declaration.command]), [
      ["only-user", "u"],
      ["s", "project"],
    ]);
    assert.deepEqual(effective[1].shadowed.map((d) => d.command), ["json", "user"]);

    await Deno.writeTextFile(join(dirs.cwd, "reasonix.toml"), "");
    set = await loadMcpDeclarations(dirs);
    assert.equal(effectiveDeclarations(set)[1].declaration.command, "json");
    await Deno.remove(join(dirs.cwd, ".mcp.json"));
    set = await loadMcpDeclarations(dirs);
    assert.equal(effectiveDeclarations(set)[1].declaration.command, "user");
  } finally {
    await cleanup(dirs);
  }
});

Deno.test("${VAR} expands in command, args, env, url and headers; a bad value only fails its server", () => {
  const env: Record<string, string> = { BIN: "/bin/srv", TOKEN: "t0k", HOST: "mcp.example" };
  const expand: VarExpander = (text) =>
    text.replace(/\$\{(\w+)(:-([^}]*))?\}/g, (_, name, __, fallback) => {
      if (env[name] !== undefined) return env[name];
      if (fallback !== undefined) return fallback;
      throw new Error(`\${${name}} refers to an unset variable`);
    });
  const warnings: string[] = [];
  const set = {
    user: serversFromToml(
      {
        root: {
          mcp: {
            servers: [
              {
                name: "a",
                command: "${BIN}",
                args: ["--port", "${PORT:-8080}"],
                env: { TOKEN: "${TOKEN}" },
              },
              {
                name: "b",
                url: "https://${HOST}/mcp",
                headers: { Authorization: "Bearer ${TOKEN}" },
              },
              { name: "c", url: "https://${MISSING}/mcp" },
            ],
          },
        },
      },
      USER,
      warnings,
    ),
    mcp_json: [],
    project: [],
    files: { user: "", mcp_json: "", project: "" },
    warnings,
  };
  const entries = resolveEntries(set, { expand, defaultStartupTimeoutMs: 30_000, cwd: "/p" });
  const [a, b, c] = entries;
  assert.equal(a.spec?.transport, "stdio");
  assert.deepEqual(a.spec && "command" in a.spec ? [a.spec.command, a.spec.args, a.spec.env] : [], [
    "/bin/srv",
    ["--port", "8080"],
    { TOKEN: "t0k" },
  ]);
  assert.equal(b.spec && "url" in b.spec ? b.spec.url.href : "", "https://mcp.example/mcp");
  assert.equal(b.spec && "headers" in b.spec && hasStaticAuthorization(b.spec.headers), true);
  assert.equal(c.spec, undefined);
  assert.match(c.problem ?? "", /MISSING/);
});

Deno.test("browser-like names default to serial; explicit concurrency wins", () => {
  for (const name of ["browser", "playwright", "my-puppeteer", "Chrome", "chromium", "selenium"]) {
    assert.equal(defaultConcurrency(name), "serial", name);
  }
  assert.equal(defaultConcurrency("github"), "parallel");
  const warnings: string[] = [];
  const set = {
    user: serversFromToml(
      {
        root: {
          mcp: {
            servers: [
              { name: "playwright", command: "x", concurrency: "parallel" },
              { name: "db", command: "x", concurrency: "serial", startup_timeout_seconds: 5 },
            ],
          },
        },
      },
      USER,
      warnings,
    ),
    mcp_json: [],
    project: [],
    files: { user: "", mcp_json: "", project: "" },
    warnings,
  };
  const [db, pw] = resolveEntries(set, {
    expand: plain,
    defaultStartupTimeoutMs: 30_000,
    cwd: "/",
  });
  assert.equal(pw.spec?.concurrency, "parallel");
  assert.equal(db.spec?.concurrency, "serial");
  assert.equal(db.spec?.startupTimeoutMs, 5000);
  assert.equal(pw.spec?.startupTimeoutMs, 30_000);
});

Deno.test("a header name fetch would refuse skips its server when loaded, as checkDeclaration says", () => {
  const warnings: string[] = [];
  const servers = serversFromMcpJson(
    JSON.stringify({
      mcpServers: {
        bad: { url: "https://x.example/mcp", headers: { "Bad Name": "v" } },
        good: { url: "https://x.example/mcp", headers: { "X-Api_Key.1": "v" } },
      },
    }),
    { kind: "mcp_json", file: "/p/.mcp.json" },
    warnings,
  );
  assert.deepEqual(servers.map((s) => s.name), ["good"]);
  assert.match(
    warnings.join("\n"),
    /"bad" is skipped: headers key "Bad Name" must be an HTTP header/,
  );
  const checked = checkDeclaration(
    { name: "bad", type: "http", url: "https://x.example/mcp", headers: { "Bad Name": "v" } },
    USER,
  );
  assert.ok("problem" in checked);
  assert.match(checked.problem, /headers key "Bad Name"/);
  assert.match(
    (checkDeclaration({ name: "a b", command: "x" }, USER) as { problem: string }).problem,
    /name must be a name without spaces/,
  );
  assert.equal(
    (checkDeclaration({ name: "ok", command: "x" }, USER) as { type: string }).type,
    "stdio",
  );
});

Deno.test("a declaration file that cannot be read is a config file error; one that does not parse is one only when strict", async () => {
  const dirs = await project({
    "home/config.toml": '[[mcp.servers]]\nname = "s"\ncommand = \n',
    "cwd/.mcp.json": "{ nope }",
  });
  try {
    const set = await loadMcpDeclarations(dirs);
    assert.equal(set.warnings.length, 2);
    assert.match(set.warnings[0], /config\.toml:3: invalid TOML.*; MCP servers not read/);
    await assert.rejects(loadMcpDeclarations({ ...dirs, strict: true }), (e: unknown) => {
      assert.ok(e instanceof McpConfigFileError, String(e));
      assert.equal(e.file, join(dirs.home, "config.toml"));
      assert.equal(e.line, 3);
      assert.match(e.fix, /line 3/);
      return true;
    });
    await Deno.writeTextFile(join(dirs.home, "config.toml"), "");
    await assert.rejects(
      loadMcpDeclarations({ ...dirs, strict: true }),
      (e: unknown) => e instanceof McpConfigFileError && /invalid JSON/.test(e.problem),
    );
    await Deno.remove(join(dirs.home, "config.toml"));
    await Deno.mkdir(join(dirs.home, "config.toml"));
    await assert.rejects(loadMcpDeclarations(dirs), (e: unknown) => {
      assert.ok(e instanceof McpConfigFileError, String(e));
      assert.match(e.problem, /cannot read the file/);
      assert.match(e.message, /\nfix: /);
      return true;
    });
  } finally {
    await cleanup(dirs);
  }
});

Deno.test("a server name that would make permission rules ambiguous is an error naming file, line and fix", async () => {
  for (const name of ["team__prod", "team._prod", "x_", "_x"]) {
    const dirs = await project({
      "reasonix.toml": `# servers\n[[mcp.servers]]\nname = ${
        JSON.stringify(name)
      }\ncommand = "true"\n`,
    });
    try {
      await assert.rejects(
        () => loadMcpDeclarations(dirs),
        (error: unknown) => {
          assert.ok(error instanceof McpConfigFileError);
          assert.equal(error.file, join(dirs.cwd, "reasonix.toml"));
          assert.equal(error.line, 3);
          assert.match(error.problem, /MCP server name/);
          assert.match(error.fix, /rename the server/);
          return true;
        },
        name,
      );
    } finally {
      await cleanup(dirs);
    }
  }
  assert.throws(
    () =>
      serversFromMcpJson(JSON.stringify({ mcpServers: { "a__b": { command: "x" } } }), USER, []),
    McpConfigFileError,
  );
});

Deno.test("sandbox = false is honoured in the user config only", () => {
  const warnings: string[] = [];
  const decl = { mcp: { servers: [{ name: "s", command: "x", sandbox: false }] } };
  const [user] = serversFromToml({ root: decl }, USER, warnings);
  const [proj] = serversFromToml(
    { root: decl },
    { kind: "project", file: "/p/reasonix.toml" },
    warnings,
  );
  assert.equal(user.sandbox, false);
  assert.equal(proj.sandbox, undefined);
  assert.match(
    warnings.join("\n"),
    /\/p\/reasonix\.toml: MCP server "s": sandbox = false is ignored/,
  );
  const [u, p] = resolveEntries(
    {
      user: [user],
      mcp_json: [],
      project: [{ ...proj, name: "t" }],
      files: {} as never,
      warnings: [],
    },
    { expand: plain, defaultStartupTimeoutMs: 1000, cwd: "/p" },
  ).sort((a, b) => a.declaration.name < b.declaration.name ? -1 : 1);
  assert.equal(u.spec?.transport === "stdio" && u.spec.sandbox, false);
  assert.equal(p.spec?.transport === "stdio" && p.spec.sandbox, undefined);
});
