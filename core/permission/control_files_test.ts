import assert from "node:assert/strict";
import { join } from "node:path";
import { controlFileOf, controlTargets } from "./control_files.ts";
import { Policy, type PolicyCall } from "./policy.ts";
import { findPreset, type PresetName } from "./presets.ts";
import { parseRule } from "./rules.ts";

const ROOT = "/ws";

function policy(mode: PresetName, rules: { allow?: string[]; deny?: string[] } = {}): Policy {
  const parse = (list?: string[]) => (list ?? []).map((r) => parseRule(r));
  return new Policy({
    preset: findPreset(mode)!,
    rules: { allow: parse(rules.allow), ask: [], deny: parse(rules.deny) },
    workspaceRoot: ROOT,
    shellSandbox: true,
  });
}

const write = (path: string, targets?: string[]): PolicyCall => ({
  tool: "write_file",
  family: "Write",
  readOnly: false,
  reads: [],
  writes: [path],
  ...(targets ? { controlTargets: targets } : {}),
});

Deno.test("control files are recognised by name at any depth", () => {
  for (
    const [path, entry] of [
      ["/ws/reasonix.toml", "reasonix.toml"],
      ["/ws/.mcp.json", ".mcp.json"],
      ["/ws/.env", ".env"],
      ["/ws/.reasonix/commands/x.md", ".reasonix/"],
      ["/ws/.git/hooks/post-checkout", ".git/"],
      ["/ws/.git/config", ".git/"],
      ["/ws/.git", ".git/"],
      ["/ws/packages/app/.mcp.json", ".mcp.json"],
      ["/ws/vendor/lib/.git/hooks/pre-commit", ".git/"],
    ]
  ) assert.equal(controlFileOf(path), entry, path);
  for (
    const path of [
      "/ws/.env.example",
      "/ws/.env.local",
      "/ws/.gitignore",
      "/ws/.github/workflows/ci.yml",
      "/ws/docs/reasonix.toml.md",
      "/ws/src/env",
      "/ws/reasonix.toml/x",
    ]
  ) assert.equal(controlFileOf(path), undefined, path);
});

Deno.test("names a case-insensitive file system would take for a control file match too", () => {
  for (
    const path of [
      "/ws/.MCP.json",
      "/ws/Reasonix.TOML",
      "/ws/.ENV",
      "/ws/.Git/hooks/x",
      "/ws/.git/HOO\u212AS/x", // Kelvin sign: folds to "k" on APFS and NTFS
      "/ws/.mcp.json.",
      "/ws/.env ",
      "/ws/.env::$DATA",
    ]
  ) assert.notEqual(controlFileOf(path), undefined, JSON.stringify(path));
});

Deno.test("writes into a control entry's real target count as control-file writes", () => {
  assert.equal(controlFileOf("/ws/.husky/pre-commit", ["/ws/.husky"]), "/ws/.husky");
  assert.equal(controlFileOf("/ws/src/a.ts", ["/ws/.husky"]), undefined);
});

Deno.test("control-file writes ask outside yolo, whatever the mode and allow rules say", () => {
  for (
    const [mode, allow] of [
      ["accept-edits", []],
      ["auto", []],
      ["ask", ["Edit"]],
      ["ask", ["Write(**)"]],
      ["auto", ["write_file"]],
    ] as [PresetName, string[]][]
  ) {
    const verdict = policy(mode, { allow }).decide(write("/ws/.mcp.json"));
    assert.equal(verdict.decision, "ask", `${mode} ${allow}`);
    assert.equal(verdict.source, "control");
    assert.deepEqual(verdict.controlFiles, ["/ws/.mcp.json"]);
    assert.match(verdict.note!, /control file \.mcp\.json/);
  }
  assert.equal(policy("yolo").decide(write("/ws/.mcp.json")).decision, "allow");
  assert.equal(policy("read-only").decide(write("/ws/.mcp.json")).decision, "deny");
  const denied = policy("auto", { deny: ["Edit(.git/**)"] }).decide(write("/ws/.git/config"));
  assert.equal(denied.decision, "deny");
  assert.equal(denied.source, "deny");
  assert.equal(policy("auto").decide(write("/ws/src/a.ts")).decision, "allow");
  const husky = policy("auto").decide(write("/ws/.husky/pre-commit", ["/ws/.husky"]));
  assert.equal(husky.source, "control");
});

Deno.test("controlTargets follows symlinked control entries, a .git file and git's hook paths", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-control-" }));
  try {
    const ws = join(base, "ws");
    await Deno.mkdir(join(ws, "meta/info"), { recursive: true });
    await Deno.writeTextFile(join(ws, "servers.json"), "{}");
    await Deno.symlink("servers.json", join(ws, ".mcp.json"));
    await Deno.writeTextFile(join(ws, ".git"), "gitdir: meta\n");
    await Deno.writeTextFile(
      join(ws, "meta/config"),
      '[core]\n\thooksPath = .husky ; husky\n[include]\n\tpath = "../shared.gitconfig"\n' +
        '[includeIf "gitdir:x"]\n\tpath = extra.gitconfig\n',
    );
    const targets = (await controlTargets(ws)).sort();
    assert.deepEqual(targets, [
      join(ws, ".husky"),
      join(ws, "meta"),
      join(ws, "meta/extra.gitconfig"),
      join(ws, "servers.json"),
      join(ws, "shared.gitconfig"),
    ]);
    const plain = join(base, "plain");
    await Deno.mkdir(join(plain, ".git"), { recursive: true });
    assert.deepEqual(await controlTargets(plain), []);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
