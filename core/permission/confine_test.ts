import assert from "node:assert/strict";
import { join } from "node:path";
import { canonicalPath, WriteScope } from "./confine.ts";

async function tree(): Promise<{ base: string; ws: string; out: string }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-confine-" }));
  const ws = join(base, "ws");
  const out = join(base, "outside");
  await Deno.mkdir(join(ws, "src"), { recursive: true });
  await Deno.mkdir(out);
  await Deno.writeTextFile(join(out, "secret"), "s");
  await Deno.symlink(out, join(ws, "link"));
  await Deno.symlink(join(out, "new-file"), join(ws, "dangling"));
  await Deno.symlink("../outside", join(ws, "relative-link"));
  await Deno.symlink(join(ws, "loop-b"), join(ws, "loop-a"));
  await Deno.symlink(join(ws, "loop-a"), join(ws, "loop-b"));
  return { base, ws, out };
}

Deno.test("canonicalPath follows symlinks, dangling ones included, and keeps missing tails", async () => {
  const { base, ws, out } = await tree();
  try {
    assert.equal(await canonicalPath("src/new/file.ts", ws), join(ws, "src/new/file.ts"));
    assert.equal(await canonicalPath("link/secret", ws), join(out, "secret"));
    assert.equal(await canonicalPath("link/missing/x", ws), join(out, "missing/x"));
    assert.equal(await canonicalPath("dangling", ws), join(out, "new-file"));
    assert.equal(await canonicalPath("relative-link/secret", ws), join(out, "secret"));
    assert.equal(await canonicalPath("../outside/secret", ws), join(out, "secret"));
    assert.equal(await canonicalPath(join(ws, "src/../link/x")), join(out, "x"));
    await assert.rejects(() => canonicalPath("loop-a/x", ws));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("canonicalPath resolves /proc/self links to where a write would really land", async () => {
  if (Deno.build.os !== "linux") return;
  const { base, out } = await tree();
  try {
    // Without --allow-all Deno refuses to stat /proc; resolution then fails, and the gate
    // refuses the call instead of guessing.
    const resolved = await canonicalPath(`/proc/self/root${out}/x`).catch((e) => e);
    if (resolved instanceof Deno.errors.NotCapable) return;
    assert.equal(resolved, join(out, "x"));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("WriteScope allows writes only inside its roots and session grants", () => {
  const scope = new WriteScope(["/ws", "/tmp/session"]);
  assert.ok(scope.allowsWrite("/ws"));
  assert.ok(scope.allowsWrite("/ws/a/b"));
  assert.ok(!scope.allowsWrite("/wsx/a"));
  assert.ok(!scope.allowsWrite("/etc/passwd"));
  scope.grantSession("/data");
  assert.ok(scope.allowsWrite("/data/x"));
  assert.deepEqual(scope.roots(), ["/ws", "/tmp/session", "/data"]);
});

Deno.test("one-time grants are consumed once and cleared between calls", () => {
  const scope = new WriteScope(["/ws"]);
  scope.grantOnce("/cache");
  assert.ok(!scope.allowsWrite("/cache/x"));
  assert.ok(scope.takeOnce("/cache"));
  assert.ok(!scope.takeOnce("/cache"));
  scope.grantOnce("/cache");
  scope.clearOnce();
  assert.ok(!scope.takeOnce("/cache"));
});

Deno.test("forbid_read blocks the path, its contents and directory searches containing it", () => {
  const scope = new WriteScope(["/home/u/proj"], ["/home/u/.ssh"]);
  assert.equal(scope.forbiddenBy("/home/u/.ssh/id_rsa", false), "/home/u/.ssh");
  assert.equal(scope.forbiddenBy("/home/u/.ssh", false), "/home/u/.ssh");
  assert.equal(scope.forbiddenBy("/home/u", true), "/home/u/.ssh");
  assert.equal(scope.forbiddenBy("/home/u", false), undefined);
  assert.equal(scope.forbiddenBy("/home/u/proj", true), undefined);
});
