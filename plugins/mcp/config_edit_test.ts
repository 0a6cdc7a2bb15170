import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "smol-toml";
import { McpConfigFileError } from "./config.ts";
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

// Spacing, key order and a number beyond double precision, all of which JSON.parse and
// JSON.stringify would change.
const MCP_JSON = `{
    "big":12345678901234567890,
  "mcpServers": {
    "a": { "command": "echo" },
    "b": {
      "command": "true"
    },
    "c":{"command":"c"}
  },
  "z":   [1,2]
}
`;

Deno.test(".mcp.json: removing a server cuts only its entry and keeps every other byte", async () => {
  await withFile(".mcp.json", MCP_JSON, async (file) => {
    assert.equal((await removeDeclaration(file, "mcp_json", "a"))?.action, "removed");
    assert.equal(
      await Deno.readTextFile(file),
      MCP_JSON.replace(`"a": { "command": "echo" },\n    `, ""),
    );
    // The last entry takes the comma before it along; the only one leaves an empty object.
    await removeDeclaration(file, "mcp_json", "c");
    await removeDeclaration(file, "mcp_json", "b");
    assert.equal(
      await Deno.readTextFile(file),
      `{\n    "big":12345678901234567890,\n  "mcpServers": {},\n  "z":   [1,2]\n}\n`,
    );
  });
  const compact = '{"big":12345678901234567890,"mcpServers":{"a":{"command":"x"},"b":{}}}';
  await withFile(".mcp.json", compact, async (file) => {
    await removeDeclaration(file, "mcp_json", "a");
    assert.equal(
      await Deno.readTextFile(file),
      '{"big":12345678901234567890,"mcpServers":{"b":{}}}',
    );
  });
});

Deno.test(".mcp.json: adding or replacing a server writes only that entry, laid out like its neighbours", async () => {
  await withFile(".mcp.json", MCP_JSON, async (file) => {
    assert.equal(
      (await addDeclaration(file, "mcp_json", { name: "d", type: "stdio", command: "d" })).action,
      "added",
    );
    assert.equal(
      await Deno.readTextFile(file),
      MCP_JSON.replace(
        `"c":{"command":"c"}\n`,
        `"c":{"command":"c"},\n    "d":{\n      "type": "stdio",\n      "command": "d"\n    }\n`,
      ),
    );
    const before = await Deno.readTextFile(file);
    await addDeclaration(file, "mcp_json", { name: "b", type: "http", url: "https://b.example/" });
    assert.equal(
      await Deno.readTextFile(file),
      before.replace(
        `"b": {\n      "command": "true"\n    }`,
        `"b": {\n      "type": "http",\n      "url": "https://b.example/"\n    }`,
      ),
    );
  });
  await withFile(".mcp.json", '{\r\n\t"other": 1\r\n}\r\n', async (file) => {
    await addDeclaration(file, "mcp_json", { name: "n", type: "stdio", command: "n" });
    assert.equal(
      await Deno.readTextFile(file),
      '{\r\n\t"other": 1,\r\n\t"mcpServers": {\r\n\t\t"n": {\r\n\t\t\t"type": "stdio",\r\n' +
        '\t\t\t"command": "n"\r\n\t\t}\r\n\t}\r\n}\r\n',
    );
  });
});

Deno.test(".mcp.json that is not valid JSON is refused with its file named, and left untouched", async () => {
  const broken = '{"mcpServers": {"a": {"command": "x"},}}';
  await withFile(".mcp.json", broken, async (file) => {
    await assert.rejects(removeDeclaration(file, "mcp_json", "a"), (e: unknown) => {
      assert.ok(e instanceof McpConfigFileError, String(e));
      assert.equal(e.file, file);
      assert.match(e.problem, /invalid JSON/);
      return true;
    });
    assert.equal(await Deno.readTextFile(file), broken);
  });
});

/** A directory with `dotfiles/<name>` and `<link>` pointing at it by a relative path. */
async function withLinkedFile(
  name: string,
  text: string,
  fn: (link: string, target: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(join(dir, "dotfiles"));
  const target = join(dir, "dotfiles", name);
  const link = join(dir, `link-${name}`);
  await Deno.writeTextFile(target, text);
  await Deno.symlink(join("dotfiles", name), link);
  try {
    await fn(link, target);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a symlinked config file is written through to its target and stays a link", async () => {
  await withLinkedFile("mcp.json", MCP_JSON, async (link, target) => {
    await removeDeclaration(link, "mcp_json", "a");
    assert.ok((await Deno.lstat(link)).isSymlink);
    assert.equal(await Deno.readLink(link), join("dotfiles", "mcp.json"));
    assert.doesNotMatch(await Deno.readTextFile(target), /"a"/);
  });
  await withLinkedFile("config.toml", ORIGINAL, async (link, target) => {
    await addDeclaration(link, "user", { name: "n", type: "stdio", command: "n" });
    assert.ok((await Deno.lstat(link)).isSymlink);
    assert.match(await Deno.readTextFile(target), /name = "n"/);
    await removeDeclaration(link, "user", "one");
    assert.ok((await Deno.lstat(link)).isSymlink);
    assert.doesNotMatch(await Deno.readTextFile(target), /name = "one"/);
    // No temporary file is left beside the link or the target.
    const left = [...Deno.readDirSync(join(target, ".."))].map((e) => e.name);
    assert.deepEqual(left, ["config.toml"]);
  });
});

Deno.test("a dangling symlink gets its target created, and stays a link", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const link = join(dir, ".mcp.json");
    await Deno.symlink("real.json", link);
    await addDeclaration(link, "mcp_json", { name: "a", type: "stdio", command: "a" });
    assert.ok((await Deno.lstat(link)).isSymlink);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(join(dir, "real.json"))), {
      mcpServers: { a: { type: "stdio", command: "a" } },
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
