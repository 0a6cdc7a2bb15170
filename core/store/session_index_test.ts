import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSessionIndex, type SessionEntry } from "./session_index.ts";

const entry = (title: string): SessionEntry => ({
  meta: null,
  version: 1,
  title,
  titled: true,
  messages: 1,
  read: 10,
  head: "{}",
  size: 10,
  mtime: 1,
});

/** Runs `body` in a process that gave up Deno's write permission after `before`. */
async function afterLockDown(dir: string, before: string, body: string): Promise<void> {
  const module = new URL("./session_index.ts", import.meta.url).href;
  const script = join(dir, "script.ts");
  await Deno.writeTextFile(
    script,
    `import * as index from ${JSON.stringify(module)};
const dir = ${JSON.stringify(join(dir, "sessions"))};
const entry = (title) => ({ meta: null, version: 1, title, titled: true, messages: 1, read: 10, head: "{}", size: 10, mtime: 1 });
${before}
await Deno.permissions.revoke({ name: "write" });
${body}`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--no-check", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

Deno.test("the listing index is still saved after the write permission is given up", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "sessions"));
    // Once with a long title, then a shorter one: the rewrite in place must not leave the
    // first version's tail behind.
    await afterLockDown(
      dir,
      "await index.reserveIndexWrites(dir);",
      `const present = new Set(["a.jsonl"]);
await index.saveSessionIndex(dir, new Map([["a.jsonl", entry("x".repeat(500))]]), present);
await index.saveSessionIndex(dir, new Map([["a.jsonl", entry("short")]]), present);
await Deno.writeTextFile(dir + "/other", "x").then(() => { throw new Error("write still allowed"); }, () => {});`,
    );
    const saved = await loadSessionIndex(join(dir, "sessions"));
    assert.deepEqual(saved.get("a.jsonl"), entry("short"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("without reserving the files first, a locked-down process saves no index", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "sessions"));
    await afterLockDown(
      dir,
      "",
      `await index.saveSessionIndex(dir, new Map([["a.jsonl", entry("t")]]), new Set(["a.jsonl"]));`,
    );
    assert.equal((await loadSessionIndex(join(dir, "sessions"))).size, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
