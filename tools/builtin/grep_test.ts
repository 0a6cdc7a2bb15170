import assert from "node:assert/strict";
import { findExecutable } from "../fs/mod.ts";
import { grepTool, runGrep } from "./grep.ts";
import type { SearchEngine, SearchOptions } from "./ripgrep.ts";
import type { ReadGuard } from "../types.ts";
import { writeSearchFixture } from "./search_fixture.ts";
import { callTool, createTestWorkspace, type TestWorkspace, within } from "./test_context.ts";

const hasRipgrep = (await findExecutable("rg")) !== undefined;
const engines: SearchEngine[] = hasRipgrep ? ["ripgrep", "builtin"] : ["builtin"];

/** Runs grep with defaults filled in by the tool's own parser. */
async function grep(
  ws: TestWorkspace,
  args: Record<string, unknown>,
  engine: SearchEngine,
  opts: SearchOptions & { signal?: AbortSignal } = {},
): Promise<{ content: string; isError?: boolean }> {
  const parsed = grepTool.parse!(args);
  assert.ok(parsed.ok);
  const ctx = opts.signal ? ws.context({ signal: opts.signal }) : ws.ctx;
  return await runGrep(parsed.value as Parameters<typeof runGrep>[0], ctx, { ...opts, engine });
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

for (const engine of engines) {
  Deno.test(`grep (${engine}) refuses a FIFO path instead of blocking`, async () => {
    await using ws = await createTestWorkspace();
    if (!(await ws.fifo("pipe"))) return;
    const result = await within(grep(ws, { pattern: "x", path: "pipe" }, engine), 5000, "grep");
    assert.equal(result.isError, true);
    assert.match(result.content, /Cannot search pipe: it is a FIFO \(named pipe\)/);
  });

  Deno.test(`grep (${engine}) reports an invalid glob argument instead of matching nothing`, async () => {
    await using ws = await createTestWorkspace();
    await ws.write("a.txt", "needle\n");
    for (const glob of ["a[", "{a,b", "{a,{b}}", "[z-a].txt"]) {
      const result = await grep(ws, { pattern: "needle", glob }, engine);
      assert.equal(result.isError, true, glob);
      assert.match(result.content, /^Invalid glob /, glob);
      assert.doesNotMatch(result.content, /regular expression/, "the pattern is not blamed");
    }
  });

  Deno.test({
    name: `grep (${engine}) counts files whose names contain a newline`,
    ignore: Deno.build.os === "windows",
    async fn() {
      await using ws = await createTestWorkspace();
      await ws.write("new\nline.txt", "hit\nhit\n");
      await ws.write("b.txt", "hit\n");
      const result = await grep(ws, { pattern: "hit", output_mode: "count" }, engine);
      assert.equal(result.content, "b.txt:1\nnew\nline.txt:2");
    },
  });

  Deno.test(`grep (${engine}) cuts long lines between characters`, async () => {
    await using ws = await createTestWorkspace();
    await ws.write("e.txt", `a${"😀".repeat(400)} needle\n`);
    const result = await grep(ws, { pattern: "needle", output_mode: "content" }, engine);
    assert.ok(result.content.isWellFormed(), "no unpaired surrogate");
    assert.equal(result.content, `e.txt:1:a${"😀".repeat(249)} [... 158 more characters]`);
  });
}

Deno.test("grep (builtin) stops a catastrophically backtracking pattern at its time budget", async () => {
  await using ws = await createTestWorkspace();
  // (a+)+$ backtracks exponentially on a's followed by another character (~1 s here).
  await ws.write("slow.txt", `${"a".repeat(24)}!\n`);
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 20);
  try {
    const result = await grep(ws, { pattern: "(a+)+$" }, "builtin", { fileBudgetMs: 200 });
    assert.equal(result.isError, true);
    assert.match(result.content, /^grep stopped: matching slow\.txt took longer than 0\.2s/);
    assert.match(result.content, /Simplify the pattern/);
    assert.ok(ticks >= 3, "the event loop kept running during the match");
  } finally {
    clearInterval(ticker);
  }
});

Deno.test("grep (builtin) returns promptly when cancelled during a slow match", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("slow.txt", `${"a".repeat(25)}!\n`);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const started = Date.now();
  const result = await grep(ws, { pattern: "(a+)+$" }, "builtin", { signal: controller.signal });
  assert.equal(result.content, "grep was cancelled.");
  assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
});

Deno.test({
  name: "grep (builtin) notes files it cannot open instead of skipping them silently",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using ws = await createTestWorkspace();
    await ws.write("ok.txt", "needle\n");
    // Deno reads non-UTF-8 names lossily, so the built-in engine cannot open this file.
    const bad = new TextEncoder().encode(`${ws.root}/bad`);
    const name = new Uint8Array([...bad, 0xff, ...new TextEncoder().encode(".txt")]);
    const created = await new Deno.Command("bash", {
      args: ["-c", 'printf "needle\\n" > "$1$(printf "\\377").txt"', "_", `${ws.root}/bad`],
    }).output();
    assert.ok(created.success && name.length > 0);
    const result = await grep(ws, { pattern: "needle" }, "builtin");
    assert.match(result.content, /^ok\.txt\n\[a path could not be read, so results may be /);
    assert.match(result.content, /bad\uFFFD\.txt: No such file or directory\]$/);
  },
});

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

/** A read guard that denies every path with a component in `names` (as a `**\/name` rule). */
function denyNames(...names: string[]): ReadGuard {
  return {
    canonical: (path) => Deno.realPath(path),
    blocked: (path, family) =>
      path.split(/[\\/]/).some((part) => names.includes(part))
        ? `deny rule (${family})`
        : undefined,
  };
}

for (const engine of engines) {
  Deno.test(`grep (${engine}) never returns what the read rules deny, in any mode`, async () => {
    await using ws = await createTestWorkspace();
    await ws.write("app/.env", "STRIPE_KEY=sk_live_1\n");
    await ws.write("app/main.ts", "const k = env.STRIPE_KEY;\n");
    await ws.write("app/secrets/key.txt", "STRIPE_KEY=sk_live_2\n");
    await Deno.symlink("app", ws.path("lnk"));
    const ctx = ws.context({ readGuard: denyNames(".env", "secrets") });
    const run = async (args: Record<string, unknown>) => {
      const parsed = grepTool.parse!(args);
      assert.ok(parsed.ok);
      return await runGrep(parsed.value as Parameters<typeof runGrep>[0], ctx, { engine });
    };
    const content = await run({ pattern: "STRIPE", output_mode: "content" });
    assert.equal(content.content, "app/main.ts:1:const k = env.STRIPE_KEY;");
    const through = await run({ pattern: "STRIPE", path: "lnk", output_mode: "content" });
    assert.equal(through.content, "lnk/main.ts:1:const k = env.STRIPE_KEY;");
    assert.equal((await run({ pattern: "sk_live" })).content, 'No matches for "sk_live" in ..');
    const count = await run({ pattern: "STRIPE", output_mode: "count" });
    assert.equal(count.content, "app/main.ts:1");
    const named = await run({ pattern: "STRIPE", path: "app/.env" });
    assert.equal(named.isError, true);
    assert.match(named.content, /denies reading it/);
  });
}
