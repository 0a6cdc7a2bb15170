import assert from "node:assert/strict";
import { findExecutable } from "../fs/mod.ts";
import { globFiles, globTool, MAX_GLOB_RESULTS, runGlob } from "./glob.ts";
import { grepTool, runGrep } from "./grep.ts";
import type { SearchEngine } from "./ripgrep.ts";
import type { ReadGuard } from "../types.ts";
import { VISIBLE_FILES, writeSearchFixture } from "./search_fixture.ts";
import { callTool, createTestWorkspace } from "./test_context.ts";
import { localWorkspace } from "../workspace/local.ts";

const hasRipgrep = (await findExecutable("rg")) !== undefined;
const engines: SearchEngine[] = hasRipgrep ? ["ripgrep", "builtin"] : ["builtin"];

async function files(dir: string, pattern: string, engine: SearchEngine): Promise<string[]> {
  const outcome = await globFiles(dir, pattern, {
    engine,
    signal: new AbortController().signal,
    workspace: localWorkspace(),
  });
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

for (const engine of engines) {
  Deno.test(`glob (${engine}) lists files with the same mtime by name`, async () => {
    await using ws = await createTestWorkspace();
    for (const name of ["c", "a", "d", "b"]) {
      await Deno.utime(await ws.write(`${name}.txt`, ""), 1_000_000, 1_000_000);
    }
    const result = await runGlob({ pattern: "*.txt" }, ws.ctx, { engine });
    assert.equal(result.content, "a.txt\nb.txt\nc.txt\nd.txt");
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

for (const engine of engines) {
  Deno.test(`glob (${engine}) reports an unclosed bracket or brace as an invalid pattern`, async () => {
    await using ws = await createTestWorkspace();
    await ws.write("a.txt", "");
    for (const pattern of ["a[", "{a,b", "{a,{b,c}}", "[z-a]", "a\\"]) {
      const result = await runGlob({ pattern }, ws.ctx, { engine });
      assert.equal(result.isError, true, pattern);
      assert.match(result.content, /^Invalid glob pattern /, pattern);
    }
    // Valid corner cases stay valid.
    for (const pattern of ["[]a]", "a}", "[!]a]*", "{}"]) {
      const result = await runGlob({ pattern }, ws.ctx, { engine });
      assert.equal(result.isError, undefined, pattern);
    }
  });

  Deno.test(`glob (${engine}) treats [!a] in ignore files and patterns as a negated class`, async () => {
    await using ws = await createTestWorkspace();
    await Deno.mkdir(ws.path(".git"));
    for (const name of ["a.md", "b.md", "c.md", "a.txt", "b.txt"]) await ws.write(name, "");
    await ws.write(".gitignore", "[!a]*.md\n");
    assert.deepEqual(await files(ws.root, "*.md", engine), ["a.md"]);
    assert.deepEqual(await files(ws.root, "[!a]*.txt", engine), ["b.txt"]);
  });
}

Deno.test({
  name: "glob (builtin) notes directories it cannot list instead of skipping them silently",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using ws = await createTestWorkspace();
    await ws.write("ok.txt", "");
    // Deno reads non-UTF-8 names lossily, so the built-in walker cannot open this directory.
    const made = await new Deno.Command("bash", {
      args: [
        "-c",
        'mkdir "$1$(printf "\\377")" && touch "$1$(printf "\\377")/x.txt"',
        "_",
        `${ws.root}/bad`,
      ],
    }).output();
    assert.ok(made.success);
    const result = await runGlob({ pattern: "*.txt" }, ws.ctx, { engine: "builtin" });
    assert.match(result.content, /^ok\.txt\n\[a path could not be read, so results may be /);
    assert.match(result.content, /bad\uFFFD: No such file or directory\]$/);
  },
});

Deno.test("glob declares a Glob access for its directory", () => {
  assert.deepEqual(globTool.access?.({ pattern: "*" }), { rule: "Glob", reads: ["."] });
  assert.deepEqual(globTool.access?.({ pattern: "*", path: "src" }), {
    rule: "Glob",
    reads: ["src"],
  });
});

Deno.test({
  name: "glob and grep note unreadable directories and refuse an unreadable path",
  // Permission bits do not stop root.
  ignore: Deno.build.os === "windows" || Deno.uid() === 0,
  async fn() {
    await using ws = await createTestWorkspace();
    await ws.write("tree/ok.txt", "needle\n");
    await ws.write("tree/locked/x.txt", "needle\n");
    await ws.write("tree/closed.txt", "needle\n");
    await Deno.chmod(ws.path("tree/closed.txt"), 0);
    await Deno.chmod(ws.path("tree/locked"), 0);
    try {
      for (const engine of engines) {
        const listed = await runGlob({ pattern: "*.txt", path: "tree" }, ws.ctx, { engine });
        assert.match(listed.content, /\nok\.txt\n\[a path could not be read, so results may /);
        assert.match(listed.content, /locked: Permission denied/);
        const locked = await runGlob({ pattern: "*", path: "tree/locked" }, ws.ctx, { engine });
        assert.equal(locked.isError, true, engine);
        assert.match(locked.content, /Cannot search tree\/locked: permission denied/);
        const grep = (args: Record<string, unknown>) => {
          const parsed = grepTool.parse!(args);
          assert.ok(parsed.ok);
          return runGrep(parsed.value as Parameters<typeof runGrep>[0], ws.ctx, { engine });
        };
        const found = await grep({ pattern: "needle", path: "tree" });
        assert.match(found.content, /^tree\/ok\.txt\n\[some paths could not be read/, engine);
        const closed = await grep({ pattern: "needle", path: "tree/closed.txt" });
        assert.equal(closed.isError, true, engine);
        assert.match(closed.content, /Cannot search tree\/closed\.txt: permission denied/);
      }
    } finally {
      await Deno.chmod(ws.path("tree/locked"), 0o755);
    }
  },
});

for (const engine of engines) {
  Deno.test(`glob (${engine}) hides and counts files the read rules deny`, async () => {
    await using ws = await createTestWorkspace();
    await ws.write("app/.env", "k");
    await ws.write("app/main.ts", "");
    await ws.write("app/secrets/a.txt", "");
    await ws.write("app/secrets/b.txt", "");
    const readGuard: ReadGuard = {
      canonical: (path) => Deno.realPath(path),
      blocked: (path) => /[\\/](\.env|secrets)([\\/]|$)/.test(path) ? "deny rule" : undefined,
    };
    const ctx = ws.context({ readGuard });
    const all = await runGlob({ pattern: "**/*" }, ctx, { engine });
    assert.equal(
      all.content,
      "app/main.ts\n[3 files hidden by read rules ([permissions].deny or ask path rules, " +
        "[sandbox].forbid_read)]",
    );
    const env = await runGlob({ pattern: "**/.env" }, ctx, { engine });
    assert.match(env.content, /^No files match "\*\*\/\.env" in \.\.\n\[1 file hidden/);
  });
}
