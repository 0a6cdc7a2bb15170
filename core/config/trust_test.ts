import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "./errors.ts";
import {
  canonicalJson,
  declarationHash,
  declarationSummary,
  printable,
  projectProviderDeclarations,
  projectSettingsDeclaration,
  type TrustDeclaration,
  TrustStore,
  workspaceKey,
} from "./trust.ts";

const WS = "/work/project";

function server(content: Record<string, unknown>, file = `${WS}/.mcp.json`): TrustDeclaration {
  return { kind: "mcp_server", name: "tools", file, content };
}

async function withHome(fn: (home: string) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-trust-" });
  try {
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("canonical JSON sorts keys at every level and keeps array order", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [2, 1], c: undefined, b: "x" } }),
    '{"a":{"b":"x","d":[2,1]},"b":1}',
  );
});

Deno.test("the hash is the same for the same declaration written in another key order", () => {
  const a = server({ type: "stdio", command: "node", args: ["s.js"], env: { A: "1", B: "2" } });
  const b = server({ env: { B: "2", A: "1" }, args: ["s.js"], command: "node", type: "stdio" });
  assert.equal(declarationHash(WS, a), declarationHash(WS, b));
  assert.match(declarationHash(WS, a), /^[0-9a-f]{64}$/);
});

Deno.test("any change of a declaration changes its hash", () => {
  const base = { type: "stdio", command: "node", args: ["s.js"], env: { A: "1" }, cwd: "tools" };
  const hash = declarationHash(WS, server(base));
  const changes: Record<string, unknown>[] = [
    { ...base, command: "nodejs" },
    { ...base, args: ["s.js", "--evil"] },
    { ...base, args: [] },
    { ...base, env: { A: "2" } },
    { ...base, env: { A: "1", LD_PRELOAD: "x.so" } },
    { ...base, cwd: "other" },
    { ...base, project_env: { CMD: "sh" } },
    { ...base, sandbox: false },
  ];
  for (const content of changes) {
    assert.notEqual(declarationHash(WS, server(content)), hash, JSON.stringify(content));
  }
  assert.notEqual(declarationHash(WS, server(base, `${WS}/reasonix.toml`)), hash);
  assert.notEqual(declarationHash(WS, { ...server(base), name: "tools2" }), hash);
  // The line is for messages: a comment added above the declaration keeps the trust.
  assert.equal(declarationHash(WS, { ...server(base), line: 40 }), hash);
});

Deno.test("the declaring file is hashed relative to the workspace, so a moved checkout keeps it", () => {
  const d = (ws: string) => server({ command: "node" }, `${ws}/.mcp.json`);
  assert.equal(declarationHash("/a/repo", d("/a/repo")), declarationHash("/b/repo", d("/b/repo")));
});

Deno.test("the settings declaration holds only the loosening keys a project file sets", () => {
  const text = `[agent]
max_turns = 5

[permissions]
deny = ["Bash(rm:*)"]
allow = ["Bash", "Edit"]

[sandbox]
allow_write = []
forbid_read = ["secrets"]
allow_unix_sockets = false
`;
  const d = projectSettingsDeclaration(text, `${WS}/reasonix.toml`);
  assert.ok(d);
  assert.equal(d.kind, "settings");
  assert.equal(d.line, 6);
  assert.deepEqual(d.content, { "permissions.allow": ["Bash", "Edit"] });
  assert.equal(
    projectSettingsDeclaration(`[permissions]\ndeny = ["Bash"]\n`, `${WS}/reasonix.toml`),
    undefined,
  );
  const more = projectSettingsDeclaration(
    text.replace("allow_write = []", 'allow_write = ["build"]'),
    `${WS}/reasonix.toml`,
  );
  assert.notEqual(declarationHash(WS, more!), declarationHash(WS, d));
});

Deno.test("a project provider that sets an endpoint is a declaration of where requests go", () => {
  const text = `default_model = "gw"

[[providers]]
name = "deepseek"
context_window = 1000

[[providers]]
name = "gw"
kind = "openai"
base_url = "https://gw.example/v1"
api_key_env = "GW_KEY"
models = ["m"]
headers = { X-Team = "a" }
`;
  const [d, ...rest] = projectProviderDeclarations(text, `${WS}/reasonix.toml`);
  assert.deepEqual(rest, []);
  assert.equal(d.kind, "provider");
  assert.equal(d.name, "gw");
  assert.equal(d.line, 7);
  assert.equal(
    canonicalJson(d.content),
    canonicalJson({
      kind: "openai",
      base_url: "https://gw.example/v1",
      api_key_env: "GW_KEY",
      headers: { "X-Team": "a" },
    }),
  );
  assert.equal(declarationSummary(d), "base_url = https://gw.example/v1");
  const moved = projectProviderDeclarations(
    text.replace("gw.example", "evil.example"),
    `${WS}/reasonix.toml`,
  );
  assert.notEqual(declarationHash(WS, moved[0]), declarationHash(WS, d));
  // Models are not where requests go: changing them keeps the trust.
  const more = projectProviderDeclarations(
    text.replace('["m"]', '["m", "n"]'),
    `${WS}/reasonix.toml`,
  );
  assert.equal(declarationHash(WS, more[0]), declarationHash(WS, d));
});

Deno.test("a settings declaration of a file that is not TOML is a ConfigError at its line", () => {
  assert.throws(
    () => projectSettingsDeclaration("[permissions\n", `${WS}/reasonix.toml`),
    (e: unknown) => e instanceof ConfigError && e.line === 1,
  );
});

Deno.test("summaries and printable text escape control characters and bidi overrides", () => {
  assert.equal(printable("a\x1b[2Jb\u202ec"), "a\\u001b[2Jb\\u202ec");
  assert.equal(
    declarationSummary(server({ command: "node", args: ["a b", "x\x07", "--flag=1"] })),
    'node "a b" "x\\u0007" --flag=1',
  );
  assert.equal(
    declarationSummary(server({ url: "https://x.example/mcp" })),
    "https://x.example/mcp",
  );
});

Deno.test("a missing store trusts nothing and is not an error", async () => {
  await withHome(async (home) => {
    const store = new TrustStore(home);
    assert.deepEqual(await store.read(), { workspaces: [] });
    const { hashes, warning } = await store.trusted(WS);
    assert.equal(hashes.size, 0);
    assert.equal(warning, undefined);
  });
});

Deno.test("a grant is stored per workspace with mode 0600 and replaces the declaration's older grant", async () => {
  await withHome(async (home) => {
    const store = new TrustStore(home);
    const v1 = server({ command: "node", args: ["v1.js"] });
    const v2 = server({ command: "node", args: ["v2.js"] });
    await store.grant(WS, [v1], new Date("2025-01-02T03:04:05Z"));
    assert.ok((await store.trusted(WS)).hashes.has(declarationHash(WS, v1)));
    assert.equal((await store.trusted("/elsewhere")).hashes.size, 0);
    if (Deno.build.os !== "windows") {
      assert.equal((await Deno.stat(store.path)).mode! & 0o777, 0o600);
    }
    await store.grant(WS, [v2]);
    const { hashes } = await store.trusted(WS);
    assert.deepEqual([...hashes], [declarationHash(WS, v2)]);
    const [w] = (await store.read()).workspaces;
    assert.equal(w.grants[0].file, ".mcp.json");
    assert.equal(w.grants[0].summary, "node v2.js");
  });
});

Deno.test("a store other users can write trusts nothing and is not written to", async () => {
  await withHome(async (home) => {
    if (Deno.build.os === "windows") return;
    const store = new TrustStore(home);
    await store.grant(WS, [server({ command: "node" })]);
    await Deno.chmod(store.path, 0o666);
    const { hashes, warning } = await store.trusted(WS);
    assert.equal(hashes.size, 0);
    assert.match(warning!, /can be written by other users \(mode 666\).*chmod 600/);
    await assert.rejects(store.grant(WS, [server({ command: "x" })]), ConfigError);
  });
});

Deno.test("revoke removes named grants or all of a workspace and says what it removed", async () => {
  await withHome(async (home) => {
    const store = new TrustStore(home);
    const a = { ...server({ command: "a" }), name: "a" };
    const b = { ...server({ command: "b" }), name: "b" };
    await store.grant(WS, [a, b]);
    await store.grant("/other", [a]);
    assert.deepEqual((await store.revoke(WS, ["a"])).map((g) => g.name), ["a"]);
    assert.deepEqual([...(await store.trusted(WS)).hashes], [declarationHash(WS, b)]);
    assert.deepEqual((await store.revoke(WS)).map((g) => g.name), ["b"]);
    assert.deepEqual((await store.read()).workspaces.map((w) => w.workspace), ["/other"]);
    assert.deepEqual(await store.revoke(WS), []);
  });
});

Deno.test("a damaged store is read as empty with a warning and is never overwritten", async () => {
  await withHome(async (home) => {
    const store = new TrustStore(home);
    const cases = [
      "{ not json",
      "[]",
      '{"version": 2, "workspaces": {}}',
      '{"version": 1, "workspaces": {"/w": {"grants": [{"hash": "zz"}]}}}',
    ];
    for (const text of cases) {
      await Deno.writeTextFile(store.path, text, { mode: 0o600 });
      const snapshot = await store.read();
      assert.deepEqual(snapshot.workspaces, [], text);
      assert.match(snapshot.warning!, new RegExp(`^${store.path.replaceAll("/", "\\/")} `));
      assert.match(snapshot.warning!, /nothing in it is trusted/);
      await assert.rejects(
        store.grant(WS, [server({ command: "node" })]),
        (e: unknown) =>
          e instanceof ConfigError && e.file === store.path && /left as it is/.test(e.message),
      );
      assert.equal(await Deno.readTextFile(store.path), text);
    }
  });
});

Deno.test("a store that is a directory is reported, not a crash", async () => {
  await withHome(async (home) => {
    await Deno.mkdir(join(home, "trust.json"));
    const snapshot = await new TrustStore(home).read();
    assert.match(snapshot.warning!, /is not a regular file/);
  });
});

Deno.test("the workspace key is the real path, through symlinks", async () => {
  await withHome(async (home) => {
    const real = join(home, "real");
    await Deno.mkdir(real);
    await Deno.symlink(real, join(home, "link"));
    assert.equal(await workspaceKey(join(home, "link")), await Deno.realPath(real));
  });
});
