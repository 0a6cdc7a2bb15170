import assert from "node:assert/strict";
import { lsTool, MAX_LS_ENTRIES } from "./ls.ts";
import { callTool, createTestWorkspace } from "./test_context.ts";
import type { ReadGuard } from "../types.ts";

Deno.test("ls lists directories first with a slash, then files with sizes, by name", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("b.txt", "12345");
  await ws.write("a.md", "x".repeat(2048));
  await ws.write("zdir/inner.txt", "");
  await ws.write("adir/inner.txt", "");
  await ws.write(".git/HEAD", "ref");
  await ws.write(".env", "");
  await Deno.symlink("adir", ws.path("link"));
  const result = await callTool(lsTool, {}, ws.ctx);
  assert.equal(
    result.content,
    [".git/", "adir/", "link/ -> adir", "zdir/", ".env  0 B", "a.md  2.0 KiB", "b.txt  5 B"]
      .join("\n"),
  );
});

Deno.test("ls lists a subdirectory and drops names matching ignore globs", async () => {
  await using ws = await createTestWorkspace();
  await ws.write("pkg/keep.ts", "");
  await ws.write("pkg/debug.log", "");
  await ws.write("pkg/node_modules/x.js", "");
  const result = await callTool(
    lsTool,
    { path: "pkg", ignore: ["*.log", "node_modules"] },
    ws.ctx,
  );
  assert.equal(result.content, "keep.ts  0 B");
});

Deno.test("ls caps long listings with a note", async () => {
  await using ws = await createTestWorkspace();
  for (let i = 0; i < MAX_LS_ENTRIES + 5; i++) await ws.write(`f${String(i).padStart(4, "0")}`, "");
  const result = await callTool(lsTool, {}, ws.ctx);
  const lines = result.content.split("\n");
  assert.equal(lines.length, MAX_LS_ENTRIES + 1);
  assert.equal(lines[0], "f0000  0 B");
  assert.equal(lines.at(-1), "[... 5 more entries omitted; use glob or ignore to narrow]");
});

Deno.test("ls explains empty, missing and non-directory paths", async () => {
  await using ws = await createTestWorkspace();
  await Deno.mkdir(ws.path("empty"));
  await ws.write("file.txt", "");
  assert.equal((await callTool(lsTool, { path: "empty" }, ws.ctx)).content, "empty is empty.");
  const missing = await callTool(lsTool, { path: "nope" }, ws.ctx);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /Directory not found: nope/);
  const file = await callTool(lsTool, { path: "file.txt" }, ws.ctx);
  assert.equal(file.isError, true);
  assert.match(file.content, /not a directory\. Use read_file/);
});

Deno.test("ls declares an LS access for its directory", () => {
  assert.deepEqual(lsTool.access?.({}), { rule: "LS", reads: ["."] });
});

Deno.test("ls ignore globs treat [!a] as a negated class", async () => {
  await using ws = await createTestWorkspace();
  for (const name of ["a.log", "b.log", "c.txt"]) await ws.write(name, "");
  const result = await callTool(lsTool, { ignore: ["[!a]*.log"] }, ws.ctx);
  assert.equal(result.content, "a.log  0 B\nc.txt  0 B");
});

Deno.test("ls hides and counts entries the read rules deny, judging links by their own name", async () => {
  await using ws = await createTestWorkspace();
  await ws.write(".env", "k");
  await ws.write("secrets/a", "");
  await ws.write("main.ts", "");
  await Deno.symlink(".env", ws.path("k"));
  const readGuard: ReadGuard = {
    canonical: (path) => Deno.realPath(path),
    blocked: (path) => /[\\/](\.env|secrets)$/.test(path) ? "deny rule" : undefined,
  };
  const result = await callTool(lsTool, {}, ws.context({ readGuard }));
  assert.equal(
    result.content,
    "k -> .env\nmain.ts  0 B\n[2 entries hidden by read rules ([permissions].deny or ask path " +
      "rules, [sandbox].forbid_read)]",
  );
  const only = await callTool(lsTool, { ignore: ["k", "main.ts"] }, ws.context({ readGuard }));
  assert.match(only.content, /^\. shows no entries\.\n\[2 entries hidden/);
});
