/**
 * The tools reach files and processes only through `ToolContext.workspace`, so they run
 * unchanged against another machine: no source in `tools/` (tests aside) calls a Deno file,
 * process or permission API, except the local workspace itself.
 */
import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const TOOLS = dirname(dirname(fileURLToPath(import.meta.url)));

/** The one file that may use them: it is what the others go through. */
const LOCAL = join("workspace", "local.ts");

/** Deno APIs that touch files, start or signal processes, or ask about permissions. */
export const DIRECT_DENO = new RegExp(
  String.raw`\bDeno\s*\.\s*(` +
    [
      "readFile",
      "readTextFile",
      "writeFile",
      "writeTextFile",
      "stat",
      "lstat",
      "open",
      "create",
      "readDir",
      "mkdir",
      "remove",
      "rename",
      "realPath",
      "readLink",
      "symlink",
      "chmod",
      "chown",
      "truncate",
      "ftruncate",
      "copyFile",
      "link",
      "utime",
      "makeTempDir",
      "makeTempFile",
      "Command",
      "ChildProcess",
      "kill",
      "run",
      "watchFs",
      "permissions",
      "FsFile",
    ].join("|") +
    String.raw`)(Sync)?\b`,
  "g",
);

/** `text` with comments blanked out (strings kept: a worker's source is code too). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/[^\n]*/g, "$1");
}

/** `file:line: call` for every direct call in the non-test sources under `dir`. */
export async function directCalls(dir: string, skip: readonly string[] = []): Promise<string[]> {
  const found: string[] = [];
  const visit = async (at: string): Promise<void> => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      if (entry.isDirectory) await visit(path);
      else if (/\.tsx?$/.test(entry.name) && !/_test\.tsx?$/.test(entry.name)) {
        const rel = relative(dir, path);
        if (skip.includes(rel)) continue;
        const lines = withoutComments(await Deno.readTextFile(path)).split("\n");
        lines.forEach((line, i) => {
          for (const match of line.matchAll(DIRECT_DENO)) {
            found.push(`${rel}:${i + 1}: ${match[0]}`);
          }
        });
      }
    }
  };
  await visit(dir);
  return found.sort();
}

Deno.test("no tool source calls Deno file or process APIs directly, only the local workspace", async () => {
  const found = await directCalls(TOOLS, [LOCAL]);
  assert.deepEqual(
    found,
    [],
    `go through ToolContext.workspace (tools/workspace) instead:\n${found.join("\n")}`,
  );
});

Deno.test("the direct-call check finds a call that is there", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "builtin"));
    await Deno.writeTextFile(
      join(dir, "builtin", "x.ts"),
      "// Deno.readFile in a comment is fine\nconst a = await Deno.readTextFile(p);\n" +
        "const w = `Deno.stat(path)`;\nnew Deno.Command('rg');\nDeno.statSync(p);\n",
    );
    await Deno.writeTextFile(join(dir, "builtin", "x_test.ts"), "await Deno.readFile(p);\n");
    assert.deepEqual(await directCalls(dir), [
      "builtin/x.ts:2: Deno.readTextFile",
      "builtin/x.ts:3: Deno.stat",
      "builtin/x.ts:4: Deno.Command",
      "builtin/x.ts:5: Deno.statSync",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
