import assert from "node:assert/strict";
import { join } from "node:path";
import { TrustStore } from "../core/config/trust.ts";
import { loadMcpDeclarations, resolveEntries } from "../plugins/mcp/config.ts";
import {
  gateProjectEntries,
  loadProjectTrust,
  reviewProject,
  TRUST_NOTHING,
  untrustedWarning,
} from "./project_trust.ts";

async function withDirs(fn: (dirs: { home: string; cwd: string }) => Promise<void>) {
  const home = await Deno.makeTempDir({ prefix: "reasonix-ptrust-home-" });
  const cwd = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-ptrust-cwd-" }));
  try {
    await fn({ home, cwd });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
}

async function entriesOf(dirs: { home: string; cwd: string }) {
  const set = await loadMcpDeclarations(dirs);
  const entries = resolveEntries(set, {
    expand: (t) => t,
    defaultStartupTimeoutMs: 1000,
    cwd: dirs.cwd,
  });
  return { set, entries };
}

const TOML = `# tools of this repo
[agent]
max_turns = 9

[[mcp.servers]]
name = "first"
command = "a"

[[mcp.servers]]
name = 'second'
command = "b"
args = ["--x"]
`;

Deno.test("declarations of reasonix.toml are reported with the line of their [[mcp.servers]] table", async () => {
  await withDirs(async (dirs) => {
    await Deno.writeTextFile(join(dirs.cwd, "reasonix.toml"), TOML);
    const review = await reviewProject(dirs);
    assert.deepEqual(
      review.items.map((i) => [i.declaration.name, i.declaration.line]),
      [["first", 5], ["second", 9]],
    );
  });
});

Deno.test("user-level servers start untouched; project ones start only when trusted", async () => {
  await withDirs(async (dirs) => {
    await Deno.writeTextFile(
      join(dirs.home, "config.toml"),
      `[[mcp.servers]]\nname = "mine"\ncommand = "m"\n`,
    );
    await Deno.writeTextFile(join(dirs.cwd, "reasonix.toml"), TOML);
    const { set, entries } = await entriesOf(dirs);
    const closed = await gateProjectEntries({ set, entries, cwd: dirs.cwd, trust: TRUST_NOTHING });
    assert.deepEqual(closed.entries.map((e) => [e.declaration.name, e.spec !== undefined]), [
      ["first", false],
      ["mine", true],
      ["second", false],
    ]);
    assert.match(
      closed.entries[0].problem!,
      /not trusted in this workspace; run `reasonix trust grant first`/,
    );
    assert.deepEqual(closed.untrusted.map((d) => d.name), ["first", "second"]);

    const review = await reviewProject(dirs);
    await new TrustStore(dirs.home).grant(review.workspace, [review.items[1].declaration]);
    const trust = await loadProjectTrust(dirs);
    const open = await gateProjectEntries({ set, entries, cwd: dirs.cwd, trust });
    assert.deepEqual(open.untrusted.map((d) => d.name), ["first"]);
    assert.ok(open.entries[2].spec);
  });
});

Deno.test("a project server shadowed by a higher project declaration needs no trust of its own", async () => {
  await withDirs(async (dirs) => {
    await Deno.writeTextFile(
      join(dirs.cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { first: { command: "from-json" } } }),
    );
    await Deno.writeTextFile(join(dirs.cwd, "reasonix.toml"), TOML);
    const review = await reviewProject(dirs);
    assert.deepEqual(
      review.items.map((i) => [i.declaration.name, i.declaration.content.command]),
      [["first", "a"], ["second", "b"]],
    );
  });
});

Deno.test("--trust-project and session answers trust without the store", async () => {
  await withDirs(async (dirs) => {
    await Deno.writeTextFile(join(dirs.cwd, "reasonix.toml"), TOML);
    const { set, entries } = await entriesOf(dirs);
    const all = await loadProjectTrust({ ...dirs, trustProject: true });
    assert.deepEqual(
      (await gateProjectEntries({ set, entries, cwd: dirs.cwd, trust: all })).untrusted,
      [],
    );
    const review = await reviewProject(dirs);
    const session = await loadProjectTrust({ ...dirs, session: new Set([review.items[0].hash]) });
    const gated = await gateProjectEntries({ set, entries, cwd: dirs.cwd, trust: session });
    assert.deepEqual(gated.untrusted.map((d) => d.name), ["second"]);
  });
});

Deno.test("the untrusted warning names every server and the settings in one line, with the commands that fix it", () => {
  const warning = untrustedWarning({
    workspace: "/w",
    servers: [
      { kind: "mcp_server", name: "a", file: "/w/.mcp.json", line: 3, content: {} },
      { kind: "mcp_server", name: "b", file: "/w/reasonix.toml", line: 7, content: {} },
    ],
    settings: {
      kind: "settings",
      name: "settings",
      file: "/w/reasonix.toml",
      line: 2,
      content: { "permissions.allow": ["Bash"] },
    },
    flag: true,
  })!;
  assert.doesNotMatch(warning, /\n/);
  assert.match(
    warning,
    /did not start the MCP servers "a" \(\.mcp\.json:3\), "b" \(reasonix\.toml:7\) and ignored the loosening settings of reasonix\.toml:2 \(permissions\.allow\)/,
  );
  assert.match(warning, /`reasonix trust`.*`reasonix trust grant --all`.*--trust-project/);
  assert.equal(untrustedWarning({ workspace: "/w", servers: [], flag: true }), undefined);
});
