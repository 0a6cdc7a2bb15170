import assert from "node:assert/strict";
import { findExecutable } from "./fs_util.ts";
import { globFiles, globTool, MAX_GLOB_RESULTS, runGlob } from "./glob.ts";
import type { SearchEngine } from "./ripgrep.ts";
import { VISIBLE_FILES, writeSearchFixture } from "./search_fixture.ts";
import { callTool, createTestWorkspace } from "./test_context.ts";

const hasRipgrep = (await findExecutable("rg")) !== undefined;
const engines: SearchEngine[] = hasRipgrep ? ["ripgrep", "builtin"] : ["builtin"];

async function files(dir: string, pattern: string, engine: SearchEngine): Promise<string[]> {
  const outcome = await globFiles(dir, pattern, { engine, signal: new AbortController().signal });
  assert.ok(outcome.ok, `glob ${pattern} failed`);
  return outcome.files.sort();
}

for (const engine of engines) {
  Deno.test(`glob (${engine}) honours ignore files, hidden files and .git`, async () => {
    await using ws = await createTestWorkspace();
    await writeSearchFixture(ws);
    assert.deepEqual(await files(ws.root, "**/*", engine), [...VISIBLE_FILES]);
    assert.deepEqual(await files(ws.root, "*.ts", engine), [
      ".hidden/secret.ts",
      "a/b.ts",
      "src/lib/util.ts",
      "src/main.ts",
    ]);
    assert.deepEqual(await files(ws.root, "src/*.ts", engine), ["src/main.ts"]);
    assert.deepEqual(await files(ws.root, "*.{ts,tsx}", engine), [
      ".hidden/secret.ts",
      "a/b.ts",
      "a/c.tsx",
      "src/lib/util.ts",
      "src/main.ts",
    ]);
    assert.deepEqual(await files(ws.root, "*.log", engine), ["src/lib/gen/keep.log"]);
    assert.deepEqual(await files(ws.root, "/a.txt", engine), ["a.txt"]);
    assert.deepEqual(
      await files(ws.root, "!*.{ts,tsx,md}", engine),
      VISIBLE_FILES.filter((f) => !/\.(ts|tsx|md)$/.test(f)),
    );
  });
}

Deno.test({
  name: "glob gives the same files with ripgrep and the built-in walker",
  ignore: !hasRipgrep,
  async fn() {
    await using ws = await createTestWorkspace();
    await writeSearchFixture(ws);
    const patterns = [
      "*",
      "**/*",
      "*.ts",
      "**/*.ts",
      "src/**/*.ts",
      "src/*.ts",
      "*.{ts,tsx}",
      "!*.md",
      "!src",
      "/a.txt",
      "*.log",
      "*.tmp",
      "a/*",
      "**/lib/**",
      "rootonly.txt",
      ".env",
      "[ab]*",
      "sub/**",
    ];
    for (const pattern of patterns) {
      assert.deepEqual(
        await files(ws.root, pattern, "builtin"),
        await files(ws.root, pattern, "ripgrep"),
        `pattern ${pattern}`,
      );
    }
    for (const dir of ["src", "sub"]) {
      assert.deepEqual(
        await files(ws.path(dir), "**/*", "builtin"),
        await files(ws.path(dir), "**/*", "ripgrep"),
        `directory ${dir}`,
      );
    }
  },
});

Deno.test("glob applies .gitignore only inside a git repository, like git and ripgrep", async () => {
  await using ws = await createTestWorkspace();
  await ws.write(".gitignore", "*.log\n");
  await ws.write("a.log", "x");
  await ws.write(".ignore", "b.txt\n");
  await ws.write("b.txt", "x");
  for (const engine of engines) {
    assert.deepEqual(await files(ws.root, "*", engine), [".gitignore", ".ignore", "a.log"]);
  }
});

for (const engine of engines) {
  Deno.test(`glob (${engine}) sorts newest first and caps the list`, async () => {
    await using ws = await createTestWorkspace();
    const total = MAX_GLOB_RESULTS + 20;
    for (let i = 0; i < total; i++) {
      const path = await ws.write(`f/${String(i).padStart(4, "0")}.txt`, "");
      await Deno.utime(path, 1_000_000 + i, 1_000_000 + i);
    }
    const result = await runGlob({ pattern: "*.txt" }, ws.ctx, { engine });
    const lines = result.content.split("\n");
    assert.equal(lines.length, MAX_GLOB_RESULTS + 1);
    assert.equal(lines[0], `f/${String(total - 1).padStart(4, "0")}.txt`);
    assert.equal(lines[1], `f/${String(total - 2).padStart(4, "0")}.txt`);
    assert.equal(lines.at(-1), "[... 20 more files omitted; narrow the pattern or path]");
  });
}

Deno.test("glob lists paths relative to the searched directory", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("pkg/src/a.ts", "");
  const result = await callTool(globTool, { pattern: "*.ts", path: "pkg" }, ws.ctx);
  assert.equal(result.content, "Files in pkg/ (newest first):\nsrc/a.ts");
});

Deno.test("glob reports no match as a plain result and bad paths as errors", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("a.txt", "");
  const none = await callTool(globTool, { pattern: "*.rs" }, ws.ctx);
  assert.equal(none.isError, undefined);
  assert.equal(none.content, 'No files match "*.rs" in ..');
  const missing = await callTool(globTool, { pattern: "*", path: "nope" }, ws.ctx);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /Directory not found: nope/);
  const file = await callTool(globTool, { pattern: "*", path: "a.txt" }, ws.ctx);
  assert.equal(file.isError, true);
  assert.match(file.content, /is not a directory/);
});

Deno.test("glob declares a Glob access for its directory", () => {
  assert.deepEqual(globTool.access?.({ pattern: "*" }), { rule: "Glob", reads: ["."] });
  assert.deepEqual(globTool.access?.({ pattern: "*", path: "src" }), {
    rule: "Glob",
    reads: ["src"],
  });
});
