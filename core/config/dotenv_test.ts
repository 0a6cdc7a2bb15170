import assert from "node:assert/strict";
import { join } from "node:path";
import { loadHomeDotenv, loadProjectDotenv, parseDotenv } from "./dotenv.ts";
import { configDirs } from "./test_helpers.ts";

Deno.test("parseDotenv reads KEY=VALUE, export prefixes, quotes and comments", () => {
  const text = [
    "# a comment",
    "",
    "PLAIN=value",
    "export EXPORTED=yes",
    "SPACED = padded  ",
    'DOUBLE="a # not a comment\\nnext"',
    "SINGLE='raw \\n kept'",
    "TRAILING=value # comment",
    "HASH=a#b",
    "EMPTY=",
    'MULTI="line one',
    'line two"',
    "not a line",
    "1BAD=x",
    "PLAIN=later wins",
  ].join("\n");
  assert.deepEqual(parseDotenv(text), {
    PLAIN: "later wins",
    EXPORTED: "yes",
    SPACED: "padded",
    DOUBLE: "a # not a comment\nnext",
    SINGLE: "raw \\n kept",
    TRAILING: "value",
    HASH: "a#b",
    EMPTY: "",
    MULTI: "line one\nline two",
  });
});

Deno.test("parseDotenv handles CRLF and a byte-order mark", () => {
  assert.deepEqual(parseDotenv("\uFEFFA=1\r\nB=2\r\n"), { A: "1", B: "2" });
});

Deno.test("loadProjectDotenv reads <cwd>/.env and loadHomeDotenv reads <home>/.env", async () => {
  const dirs = await configDirs();
  try {
    assert.deepEqual(await loadProjectDotenv(dirs.cwd), {});
    await dirs.write(join(dirs.cwd, ".env"), "TOKEN=project\n");
    await dirs.write(join(dirs.home, ".env"), "TOKEN=home\n");
    assert.deepEqual(await loadProjectDotenv(dirs.cwd), { TOKEN: "project" });
    assert.deepEqual(await loadHomeDotenv(dirs.home), { TOKEN: "home" });
  } finally {
    await dirs.cleanup();
  }
});
