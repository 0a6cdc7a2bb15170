import assert from "node:assert/strict";
import { findExecutable } from "./fs_util.ts";
import { grepTool, runGrep } from "./grep.ts";
import type { SearchEngine } from "./ripgrep.ts";
import { writeSearchFixture } from "./search_fixture.ts";
import { callTool, createTestWorkspace, type TestWorkspace } from "./test_context.ts";

const hasRipgrep = (await findExecutable("rg")) !== undefined;
const engines: SearchEngine[] = hasRipgrep ? ["ripgrep", "builtin"] : ["builtin"];

/** Runs grep with defaults filled in by the tool's own parser. */
async function grep(
  ws: TestWorkspace,
  args: Record<string, unknown>,
  engine: SearchEngine,
): Promise<{ content: string; isError?: boolean }> {
  const parsed = grepTool.parse!(args);
  assert.ok(parsed.ok);
  return await runGrep(parsed.value as Parameters<typeof runGrep>[0], ws.ctx, { engine });
}

for (const engine of engines) {
  Deno.test(`grep (${engine}) prints content with line numbers and context groups`, async () => {
    await using ws = await createTestWorkspace();
    await writeSearchFixture(ws);
    const plain = await grep(ws, { pattern: "needle", output_mode: "content", path: "a" }, engine);
    assert.equal(plain.content, "a/b.ts:1:const needle = 1;\na/b.ts:3:needle again");
    const context = await grep(
      ws,
      { pattern: "needle", output_mode: "content", path: "src", context: 1 },
      engine,
    );
    assert.equal(
      context.content,
      [
        "src/lib/gen/keep.log:1:needle log kept",
        "--",
        "src/main.ts-3-function main() {",
        "src/main.ts:4:  return util('needle');",
        "src/main.ts-5-}",
        "--",
        "src/main.ts-8-",
        "src/main.ts:9:const x = 'needle';",
        "src/main.ts-10-export { main, x };",
      ].join("\n"),
    );
  });

  Deno.test(`grep (${engine}) lists matching files, skipping ignored, binary and .git`, async () => {
    await using ws = await createTestWorkspace();
    await writeSearchFixture(ws);
    const result = await grep(ws, { pattern: "needle" }, engine);
    assert.deepEqual(result.content.split("\n").sort(), [
      ".hidden/secret.ts",
      "README.md",
      "a.txt",
      "a/b.ts",
      "crlf.txt",
      "src/lib/gen/keep.log",
      "src/main.ts",
      "sub/important.tmp",
      "sub/rootonly.txt",
      "u16.txt",
    ]);
  });

  Deno.test(`grep (${engine}) counts, ignores case and filters by glob`, async () => {
    await using ws = await createTestWorkspace();
    await writeSearchFixture(ws);
    const count = await grep(
      ws,
      { pattern: "needle", output_mode: "count", ignore_case: true, glob: "*.ts" },
      engine,
    );
    assert.equal(count.content, ".hidden/secret.ts:1\na/b.ts:2\nsrc/main.ts:3");
    const anchored = await grep(
      ws,
      { pattern: "needle", output_mode: "count", glob: "src/**" },
      engine,
    );
    assert.equal(anchored.content, "src/lib/gen/keep.log:1\nsrc/main.ts:2");
    const all = await grep(ws, { pattern: "needle", output_mode: "count" }, engine);
    assert.equal(
      all.content,
      [
        ".hidden/secret.ts:1",
        "README.md:1",
        "a/b.ts:2",
        "a.txt:1",
        "crlf.txt:1",
        "src/lib/gen/keep.log:1",
        "src/main.ts:2",
        "sub/important.tmp:1",
        "sub/rootonly.txt:1",
        "u16.txt:1",
      ].join("\n"),
    );
  });

  Deno.test(`grep (${engine}) searches a single file and explains bad input`, async () => {
    await using ws = await createTestWorkspace();
    await writeSearchFixture(ws);
    const file = await grep(
      ws,
      { pattern: "again$", output_mode: "content", path: "a/b.ts" },
      engine,
    );
    assert.equal(file.content, "a/b.ts:3:needle again");
    const crlf = await grep(
      ws,
      { pattern: "two", output_mode: "content", path: "crlf.txt" },
      engine,
    );
    assert.equal(crlf.content, "crlf.txt:2:line two");
    const none = await grep(ws, { pattern: "haystack" }, engine);
    assert.equal(none.isError, undefined);
    assert.equal(none.content, 'No matches for "haystack" in ..');
    const invalid = await grep(ws, { pattern: "needle(" }, engine);
    assert.equal(invalid.isError, true);
    assert.match(invalid.content, /^grep failed for pattern "needle\(":/);
    const binary = await grep(ws, { pattern: "needle", path: "bin.dat" }, engine);
    assert.equal(binary.isError, true);
    assert.match(binary.content, /binary/);
    const missing = await grep(ws, { pattern: "x", path: "nope" }, engine);
    assert.equal(missing.isError, true);
    assert.match(missing.content, /Path not found: nope/);
  });

  Deno.test(`grep (${engine}) stops at head_limit with a note`, async () => {
    await using ws = await createTestWorkspace();
    await ws.write("many.txt", Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n"));
    const content = await grep(
      ws,
      { pattern: "hit", output_mode: "content", head_limit: 5 },
      engine,
    );
    const lines = content.content.split("\n");
    assert.deepEqual(lines.slice(0, 5), [0, 1, 2, 3, 4].map((i) => `many.txt:${i + 1}:hit ${i}`));
    assert.match(lines[5], /^\[\.\.\. output stopped at head_limit=5 lines/);
    for (let i = 0; i < 4; i++) await ws.write(`f${i}.txt`, "hit\n");
    const files = await grep(ws, { pattern: "hit", head_limit: 2 }, engine);
    assert.equal(files.content.split("\n").length, 3);
    assert.match(files.content, /\[\.\.\. 3 more files omitted/);
  });
}

Deno.test({
  name: "grep gives the same output with ripgrep and the built-in engine",
  ignore: !hasRipgrep,
  async fn() {
    await using ws = await createTestWorkspace();
    await writeSearchFixture(ws);
    const cases: Record<string, unknown>[] = [
      { pattern: "needle" },
      { pattern: "needle", output_mode: "content" },
      { pattern: "needle", output_mode: "content", context: 2 },
      { pattern: "NEEDLE", output_mode: "content", ignore_case: true },
      { pattern: "needle", output_mode: "count" },
      { pattern: "^export", output_mode: "content", glob: "*.ts" },
      { pattern: "needle", output_mode: "count", glob: "!*.ts" },
      { pattern: "n[e]+dle\\s+(in|again)", output_mode: "content" },
      { pattern: "needle", output_mode: "content", path: "sub" },
      { pattern: "needle", output_mode: "content", path: "u16.txt" },
      { pattern: "needle", output_mode: "content", head_limit: 3 },
      { pattern: "return", output_mode: "content", context: 5, path: "src" },
    ];
    for (const args of cases) {
      const builtin = await grep(ws, args, "builtin");
      const ripgrep = await grep(ws, args, "ripgrep");
      assert.equal(builtin.isError, ripgrep.isError, JSON.stringify(args));
      // files_with_matches is ordered by mtime, which ties within a fast-written fixture.
      const normalize = (s: string) =>
        args.output_mode === undefined ? s.split("\n").sort().join("\n") : s;
      assert.equal(normalize(builtin.content), normalize(ripgrep.content), JSON.stringify(args));
    }
  },
});

Deno.test("grep declares a Grep access for its path", () => {
  const parsed = grepTool.parse!({ pattern: "x", path: "src" });
  assert.ok(parsed.ok);
  assert.deepEqual(grepTool.access?.(parsed.value), { rule: "Grep", reads: ["src"] });
});

Deno.test("grep runs through the registered tool with default arguments", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.ts", "alpha\n");
  const result = await callTool(grepTool, { pattern: "alp" }, ws.ctx);
  assert.equal(result.content, "a.ts");
});
