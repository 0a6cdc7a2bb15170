import assert from "node:assert/strict";
import { parse as parseToml } from "smol-toml";
/** Plain objects, so deep equality ignores smol-toml's null prototypes. */
const parse = (text: string) => JSON.parse(JSON.stringify(parseToml(text)));

import { removeLegacyKeys, scrubLegacyKeys, setTomlValue } from "./toml_edit.ts";

Deno.test("setTomlValue replaces a key in place, keeping comments and order", () => {
  const text =
    "# top\n[agent]\nmax_turns = 5 # keep\ncompact_ratio = 0.8 # why\n\n[tools]\nx = 1\n";
  const out = setTomlValue(text, "agent", "compact_ratio", "0.7");
  assert.equal(
    out,
    "# top\n[agent]\nmax_turns = 5 # keep\ncompact_ratio = 0.7 # why\n\n[tools]\nx = 1\n",
  );
});

Deno.test("setTomlValue adds a missing key to its table, or the table itself", () => {
  const withTable = setTomlValue(
    "[agent]\nmax_turns = 5\n\n[tools]\nx = 1\n",
    "agent",
    "compact_ratio",
    "0.7",
  );
  assert.deepEqual(parse(withTable), {
    agent: { max_turns: 5, compact_ratio: 0.7 },
    tools: { x: 1 },
  });
  const without = setTomlValue('default_model = "x"', "agent", "compact_ratio", "0.7");
  assert.equal(without, 'default_model = "x"\n\n[agent]\ncompact_ratio = 0.7\n');
  assert.equal(setTomlValue("", "agent", "compact_ratio", "0.7"), "[agent]\ncompact_ratio = 0.7\n");
});

Deno.test("setTomlValue does not touch a same-named key in another table", () => {
  const text = "[other]\ncompact_ratio = 0.1\n[agent]\nmax_turns = 1\n";
  const out = setTomlValue(text, "agent", "compact_ratio", "0.7");
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
