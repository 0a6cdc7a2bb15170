import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "smol-toml";
import { addDeclaration, removeDeclaration } from "./config_edit.ts";

interface Parsed {
  mcp: { servers: Record<string, unknown>[] };
  agent: { temperature: number };
}

/** smol-toml builds null-prototype objects; compare plain data. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

const ORIGINAL = `# my settings
default_model = "deepseek"

[[mcp.servers]] # the first
name = "one"
command = "npx"
args = ["-y", "one"]

# a comment that belongs to the next section
[[mcp.servers]]
name = "two"
url = "https://two.example/mcp"
[mcp.servers.headers]
X-Key = "\${KEY}"

[agent]
temperature = 0.2 # keep
`;

async function withFile(
  name: string,
  text: string | undefined,
  fn: (file: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  const file = join(dir, name);
  if (text !== undefined) await Deno.writeTextFile(file, text);
  try {
    await fn(file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("adding a server appends one [[mcp.servers]] block and keeps the rest byte for byte", async () => {
  await withFile("config.toml", ORIGINAL, async (file) => {
    const result = await addDeclaration(file, "user", {
      name: "three",
      type: "stdio",
      command: "deno",
      args: ["run", "-A", "npm:pkg"],
      env: { "TOKEN": "${TOKEN}", "weird key": 'v"q' },
    });
    assert.equal(result.action, "added");
    const text = await Deno.readTextFile(file);
    assert.ok(text.startsWith(ORIGINAL));
    const parsed = plain(parse(text)) as Parsed;
    assert.deepEqual(parsed.mcp.servers[2], {
      name: "three",
      type: "stdio",
      command: "deno",
      args: ["run", "-A", "npm:pkg"],
      env: { TOKEN: "${TOKEN}", "weird key": 'v"q' },
    });
  });
});

Deno.test("removing a server cuts only its block, sub-tables included", async () => {
  await withFile("config.toml", ORIGINAL, async (file) => {
    assert.equal((await removeDeclaration(file, "user", "two"))?.action, "removed");
    const text = await Deno.readTextFile(file);
    assert.match(text, /# my settings/);
    assert.match(text, /# a comment that belongs to the next section/);
    assert.match(text, /temperature = 0\.2 # keep/);
    assert.doesNotMatch(text, /two\.example|X-Key/);
    const parsed = plain(parse(text)) as Parsed;
    assert.deepEqual(parsed.mcp.servers.map((s) => s.name), ["one"]);
    assert.equal(parsed.agent.temperature, 0.2);
    assert.equal(await removeDeclaration(file, "user", "absent"), undefined);
  });
});

Deno.test("replacing a server edits it in place", async () => {
  await withFile("config.toml", ORIGINAL, async (file) => {
    const result = await addDeclaration(file, "user", {
      name: "one",
      type: "stdio",
      command: "uvx",
    });
    assert.equal(result.action, "replaced");
    const parsed = plain(parse(await Deno.readTextFile(file))) as Parsed;
    assert.deepEqual(parsed.mcp.servers.map((s) => s.name), ["one", "two"]);
    assert.equal(parsed.mcp.servers[0].command, "uvx");
    assert.equal(parsed.mcp.servers[0].args, undefined);
  });
});

Deno.test("an inline-array layout is refused, and the file is left untouched", async () => {
  const inline = 'mcp = { servers = [{ name = "x", command = "y" }] }\n';
  await withFile("reasonix.toml", inline, async (file) => {
    await assert.rejects(removeDeclaration(file, "project", "x"), /edit the file by hand/);
    assert.equal(await Deno.readTextFile(file), inline);
  });
});

Deno.test("a missing file is created, and .mcp.json keeps its other keys", async () => {
  await withFile("config.toml", undefined, async (file) => {
    await addDeclaration(file, "user", { name: "a", type: "http", url: "https://a.example/mcp" });
    assert.equal(
      await Deno.readTextFile(file),
      '[[mcp.servers]]\nname = "a"\ntype = "http"\nurl = "https://a.example/mcp"\n',
    );
  });
  const json = JSON.stringify({ other: 1, mcpServers: { keep: { command: "k" } } });
  await withFile(".mcp.json", json, async (file) => {
    await addDeclaration(file, "mcp_json", { name: "b", type: "stdio", command: "b" });
    await removeDeclaration(file, "mcp_json", "keep");
    assert.deepEqual(JSON.parse(await Deno.readTextFile(file)), {
      other: 1,
      mcpServers: { b: { type: "stdio", command: "b" } },
    });
  });
});
