import assert from "node:assert/strict";
import { join } from "node:path";
import { resolveApiKey } from "../../core/config/mod.ts";
import { keyProblem, storeKey } from "./key_store.ts";

Deno.test("storeKey replaces the variable's lines, keeps the rest, and leaves the file 0600", async () => {
  const home = await Deno.makeTempDir();
  try {
    const path = join(home, ".env");
    await Deno.writeTextFile(path, "# keys\nOTHER=1\nexport MY_KEY=old\nMY_KEY=older\nLAST=2\n", {
      mode: 0o644,
    });
    await Deno.chmod(path, 0o644);
    const stored = await storeKey(home, "MY_KEY", "sk-new-0123");
    assert.deepEqual(stored, { path, replaced: true });
    assert.equal(await Deno.readTextFile(path), "# keys\nOTHER=1\nMY_KEY=sk-new-0123\nLAST=2\n");
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    // What `reasonix run` reads back.
    const key = await resolveApiKey({
      name: "p",
      kind: "openai",
      models: [],
      api_key_env: "MY_KEY",
      context_window: 1,
      max_output_tokens: 0,
      model_overrides: {},
      headers: {},
      options: {},
    }, { env: {}, home });
    assert.equal(key, "sk-new-0123");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("storeKey creates the home and a new 0600 file", async () => {
  const root = await Deno.makeTempDir();
  try {
    const home = join(root, "nested", ".reasonix");
    const stored = await storeKey(home, "A_KEY", "abc");
    assert.equal(stored.replaced, false);
    assert.equal(await Deno.readTextFile(join(home, ".env")), "A_KEY=abc\n");
    assert.equal((await Deno.stat(join(home, ".env"))).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("keyProblem rejects what cannot be a key and never quotes it", () => {
  assert.equal(keyProblem("sk-abc"), undefined);
  for (const bad of ["", "sk abc", "sk-abc\n", '"sk-abc"', "sk-ключ"]) {
    const problem = keyProblem(bad);
    assert.ok(problem, JSON.stringify(bad));
    if (bad.length > 2) assert.ok(!problem.includes(bad.trim()));
  }
});
