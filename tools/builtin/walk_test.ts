import assert from "node:assert/strict";
import { compileGitignore, globFilter, IgnoreRules, walkFiles } from "./walk.ts";
import { createTestWorkspace } from "./test_context.ts";

Deno.test("compileGitignore follows gitignore anchoring, negation and directory rules", () => {
  const match = compileGitignore("# comment\n*.log\n!keep.log\n/top.txt\nbuild/\ndocs/*.md\n");
  assert.equal(match("a/b/x.log", false), "ignore");
  assert.equal(match("a/keep.log", false), "whitelist");
  assert.equal(match("top.txt", false), "ignore");
  assert.equal(match("sub/top.txt", false), undefined);
  assert.equal(match("build", true), "ignore");
  assert.equal(match("build", false), undefined);
  assert.equal(match("docs/a.md", false), "ignore");
  assert.equal(match("docs/deep/a.md", false), undefined);
  assert.equal(match("x/build/file", false), undefined, "matching is per path, not per parent");
});

Deno.test("globFilter matches names at any depth and anchors paths with a slash", () => {
  const byName = globFilter("*.{ts,tsx}");
  assert.ok(byName.file("a.ts") && byName.file("x/y/b.tsx") && !byName.file("c.js"));
  assert.deepEqual(byName.ripgrepArgs, [
    "--type-add",
    "reasonixglob:*.{ts,tsx}",
    "--type",
    "reasonixglob",
  ]);
  const anchored = globFilter("src/*.ts");
  assert.ok(
    anchored.file("src/a.ts") && !anchored.file("src/x/a.ts") && !anchored.file("x/src/a.ts"),
  );
  assert.deepEqual(anchored.ripgrepArgs, []);
  const negated = globFilter("!gen");
  assert.ok(negated.file("src/a.ts") && !negated.file("gen/a.ts") && !negated.file("src/gen/a"));
  assert.ok(negated.skipDir("gen"));
});

Deno.test("IgnoreRules ranks .ignore above .gitignore and stops git rules at the repo root", async () => {
  await using ws = await createTestWorkspace();
  await ws.write(".gitignore", "*.txt\n");
  await ws.write("repo/.git/HEAD", "");
  await ws.write("repo/.gitignore", "*.log\n");
  await ws.write("repo/.ignore", "!important.log\n");
  const rules = await IgnoreRules.forRoot(ws.path("repo"), ws.ctx.workspace);
  assert.equal(rules.isIgnored(ws.path("repo/a.log"), false), true);
  assert.equal(rules.isIgnored(ws.path("repo/important.log"), false), false);
  assert.equal(rules.isIgnored(ws.path("repo/a.txt"), false), false, "above the repo root");
});

Deno.test("walkFiles yields files in name order and stops when aborted", async () => {
  await using ws = await createTestWorkspace();
  for (const name of ["b.txt", "a/z.txt", "a.txt", ".git/config"]) await ws.write(name, "");
  const seen: string[] = [];
  for await (
    const file of walkFiles(ws.root, {
      signal: new AbortController().signal,
      workspace: ws.ctx.workspace,
    })
  ) {
    seen.push(file.rel);
  }
  assert.deepEqual(seen, ["a/z.txt", "a.txt", "b.txt"]);
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(async () => {
    for await (
      const _ of walkFiles(ws.root, { signal: controller.signal, workspace: ws.ctx.workspace })
    ) {
      // Never reached.
    }
  });
});
