import assert from "node:assert/strict";
import { join } from "node:path";
import { completeReferencePath } from "./complete.ts";

Deno.test("completion lists one directory level, directories first, hiding dotfiles and noise", async () => {
  const root = await Deno.makeTempDir({ prefix: "reasonix-complete-" });
  try {
    for (const dir of ["src/lib/deep", ".git", "node_modules/x", "scripts"]) {
      await Deno.mkdir(join(root, dir), { recursive: true });
    }
    for (const file of ["src/main.ts", "src/lib/util.ts", "Setup.md", ".env", "readme.md"]) {
      await Deno.writeTextFile(join(root, file), "");
    }
    const top = await completeReferencePath("", { root });
    assert.deepEqual(top.map((c) => c.value), ["scripts/", "src/", "readme.md", "Setup.md"]);
    const s = await completeReferencePath("s", { root });
    assert.deepEqual(s.map((c) => c.value), ["scripts/", "src/", "Setup.md"]);
    // One level only: src/ shows lib/ but not lib/util.ts.
    const src = await completeReferencePath("src/", { root });
    assert.deepEqual(src.map((c) => [c.value, c.label, c.isDirectory]), [
      ["src/lib/", "lib/", true],
      ["src/main.ts", "main.ts", false],
    ]);
    assert.deepEqual((await completeReferencePath(".", { root })).map((c) => c.value), [
      ".env",
    ]);
    assert.deepEqual(
      (await completeReferencePath("node_modules", { root })).map((c) => c.value),
      ["node_modules/"],
    );
    assert.deepEqual(await completeReferencePath("missing/", { root }), []);
    assert.equal((await completeReferencePath("", { root, limit: 1 })).length, 1);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
