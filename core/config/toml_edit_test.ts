import assert from "node:assert/strict";
import { parse as parseToml } from "smol-toml";
/** Plain objects, so deep equality ignores smol-toml's null prototypes. */
const parse = (text: string) => JSON.parse(JSON.stringify(parseToml(text)));

import { ConfigError } from "./errors.ts";
import { removeLegacyKeys, scrubLegacyKeys, setTomlValue, writeTomlFile } from "./toml_edit.ts";

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err;
  }
  return assert.fail("expected a ConfigError");
}

Deno.test("setTomlValue replaces a key in place, keeping comments and order", () => {
  const text =
    "# top\n[agent]\nmax_turns = 5 # keep\ncompact_ratio = 0.8 # why\n\n[tools]\nx = 1\n";
  const out = setTomlValue(text, { table: "agent", key: "compact_ratio", literal: "0.7" });
  assert.equal(
    out,
    "# top\n[agent]\nmax_turns = 5 # keep\ncompact_ratio = 0.7 # why\n\n[tools]\nx = 1\n",
  );
});

Deno.test("setTomlValue adds a missing key to its table, or the table itself", () => {
  const withTable = setTomlValue(
    "[agent]\nmax_turns = 5\n\n[tools]\nx = 1\n",
    { table: "agent", key: "compact_ratio", literal: "0.7" },
  );
  assert.deepEqual(parse(withTable), {
    agent: { max_turns: 5, compact_ratio: 0.7 },
    tools: { x: 1 },
  });
  const without = setTomlValue('default_model = "x"', {
    table: "agent",
    key: "compact_ratio",
    literal: "0.7",
  });
  assert.equal(without, 'default_model = "x"\n\n[agent]\ncompact_ratio = 0.7\n');
  assert.equal(
    setTomlValue("", { table: "agent", key: "compact_ratio", literal: "0.7" }),
    "[agent]\ncompact_ratio = 0.7\n",
  );
});

Deno.test("setTomlValue does not touch a same-named key in another table", () => {
  const text = "[other]\ncompact_ratio = 0.1\n[agent]\nmax_turns = 1\n";
  const out = setTomlValue(text, { table: "agent", key: "compact_ratio", literal: "0.7" });
  assert.deepEqual(parse(out), {
    other: { compact_ratio: 0.1 },
    agent: { max_turns: 1, compact_ratio: 0.7 },
  });
});

Deno.test("legacy context keys are removed and everything else is kept", () => {
  const text =
    "[agent]\nsoft_compact_ratio = 0.5\ncompact_ratio = 0.8\ncontext_editing = true\nkeep = 3\n";
  const { text: out, removed } = removeLegacyKeys(text);
  assert.deepEqual(removed, ["soft_compact_ratio", "context_editing"]);
  assert.equal(out, "[agent]\ncompact_ratio = 0.8\nkeep = 3\n");
});

Deno.test("scrubLegacyKeys rewrites only files that have them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const dirty = `${dir}/a.toml`;
    const clean = `${dir}/b.toml`;
    await Deno.writeTextFile(dirty, "[agent]\ncold_resume_prune = true\nmax_turns = 2\n");
    await Deno.writeTextFile(clean, "[agent]\nmax_turns = 2\n");
    const before = (await Deno.stat(clean)).mtime;
    const notices = await scrubLegacyKeys([dirty, clean, `${dir}/missing.toml`]);
    assert.equal(notices.length, 1);
    assert.match(notices[0], /cold_resume_prune/);
    assert.equal(await Deno.readTextFile(dirty), "[agent]\nmax_turns = 2\n");
    assert.deepEqual((await Deno.stat(clean)).mtime, before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("setTomlValue replaces a quoted key in place", () => {
  const text = '[agent]\n"compact_ratio" = 0.7 # mine\n';
  assert.equal(
    setTomlValue(text, { table: "agent", key: "compact_ratio", literal: "0.6" }),
    '[agent]\n"compact_ratio" = 0.6 # mine\n',
  );
  assert.equal(
    setTomlValue('["agent"]\nmax_turns = 2\n', {
      table: "agent",
      key: "compact_ratio",
      literal: "0.6",
    }),
    '["agent"]\nmax_turns = 2\ncompact_ratio = 0.6\n',
  );
});

Deno.test("setTomlValue keeps a table written with dotted keys in dotted form", () => {
  // `[agent]` after `agent.temperature = ...` would be invalid TOML: the table is defined.
  const text = "agent.temperature = 0.0\n\n[tools]\nbash_timeout_seconds = 5\n";
  const added = setTomlValue(text, { table: "agent", key: "compact_ratio", literal: "0.6" });
  assert.equal(
    added,
    "agent.temperature = 0.0\nagent.compact_ratio = 0.6\n\n[tools]\nbash_timeout_seconds = 5\n",
  );
  assert.equal(
    setTomlValue(added, { table: "agent", key: "compact_ratio", literal: "0.7" }),
    "agent.temperature = 0.0\nagent.compact_ratio = 0.7\n\n[tools]\nbash_timeout_seconds = 5\n",
  );
});

Deno.test("setTomlValue refuses an inline table, saying why and showing its real line", () => {
  const text = "# mine\nagent = { temperature = 0.0 }\n";
  const err = configError(() =>
    setTomlValue(text, {
      table: "agent",
      key: "compact_ratio",
      literal: "0.6",
      file: "/h/config.toml",
    })
  );
  assert.equal(err.file, "/h/config.toml");
  assert.equal(err.line, 2);
  assert.match(err.problem, /agent table is written inline/);
  assert.ok(err.problem.includes("agent = { temperature = 0.0 }"), err.problem);
  assert.match(err.fix ?? "", /inside its braces by hand, or turn it into an \[agent\] section/);
});

Deno.test("setTomlValue reports broken TOML at its line in the original text", () => {
  const err = configError(() =>
    setTomlValue("[agent]\nmax_turns = \n", {
      table: "agent",
      key: "compact_ratio",
      literal: "0.6",
      file: "/f.toml",
    })
  );
  assert.equal(err.file, "/f.toml");
  assert.equal(err.line, 2);
  // The message is one problem line and one fix line: no snippet of edited text.
  assert.equal(err.message.split("\n").length, 2, err.message);
});

Deno.test("setTomlValue and removeLegacyKeys ignore lookalike lines inside strings", () => {
  const text = 'note = """\n[agent]\ncompact_ratio = 0.1\nsoft_compact_ratio = 1\n"""\n';
  assert.equal(
    setTomlValue(text, { table: "agent", key: "compact_ratio", literal: "0.6" }),
    `${text}\n[agent]\ncompact_ratio = 0.6\n`,
  );
  assert.deepEqual(removeLegacyKeys(text), { text, removed: [] });
});

Deno.test("removeLegacyKeys removes quoted and multi-line spellings where they are ignored", () => {
  const text =
    'soft_compact_ratio = 0.5\n[agent]\n"context_editing" = [\n  1,\n] # old\nkeep = 3\n' +
    '[[providers]]\nname = "x"\ncold_resume_prune = true\n[mcp.s]\ncontext_editing = 1\n';
  const { text: out, removed } = removeLegacyKeys(text);
  assert.deepEqual(removed, ["soft_compact_ratio", "context_editing", "cold_resume_prune"]);
  // [mcp.s] is not where the loader drops the key, so it is the user's data and stays.
  assert.equal(out, '[agent]\nkeep = 3\n[[providers]]\nname = "x"\n[mcp.s]\ncontext_editing = 1\n');
});

Deno.test("writeTomlFile through a symlink replaces the target and keeps link and mode", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/dotfiles`);
    const target = `${dir}/dotfiles/config.toml`;
    await Deno.writeTextFile(target, "[agent]\nmax_turns = 1\n");
    await Deno.chmod(target, 0o600);
    await Deno.symlink("dotfiles/config.toml", `${dir}/config.toml`);
    await writeTomlFile(`${dir}/config.toml`, "[agent]\nmax_turns = 2\n");
    assert.ok((await Deno.lstat(`${dir}/config.toml`)).isSymlink);
    assert.equal(await Deno.readLink(`${dir}/config.toml`), "dotfiles/config.toml");
    assert.equal(await Deno.readTextFile(target), "[agent]\nmax_turns = 2\n");
    assert.equal((await Deno.stat(target)).mode! & 0o777, 0o600);
    // No temp file is left beside either the link or the target.
    assert.deepEqual([...Deno.readDirSync(`${dir}/dotfiles`)].map((e) => e.name), ["config.toml"]);
    assert.deepEqual(
      [...Deno.readDirSync(dir)].map((e) => e.name).sort(),
      ["config.toml", "dotfiles"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("scrubLegacyKeys cleans a symlinked config at its target", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/real.toml`, "[agent]\nsoft_compact_ratio = 0.5\n");
    await Deno.symlink(`${dir}/real.toml`, `${dir}/config.toml`);
    const notices = await scrubLegacyKeys([`${dir}/config.toml`]);
    assert.equal(notices.length, 1);
    assert.ok((await Deno.lstat(`${dir}/config.toml`)).isSymlink);
    assert.equal(await Deno.readTextFile(`${dir}/real.toml`), "[agent]\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("scrubLegacyKeys never rewrites a file that is not UTF-8", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/config.toml`;
    const bytes = new Uint8Array([
      ...new TextEncoder().encode("# caf"),
      0xe9,
      ...new TextEncoder().encode("\n[agent]\nsoft_compact_ratio = 0.5\n"),
    ]);
    await Deno.writeFile(path, bytes);
    assert.deepEqual(await scrubLegacyKeys([path]), []);
    assert.deepEqual(await Deno.readFile(path), bytes);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
