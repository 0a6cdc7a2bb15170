import assert from "node:assert/strict";
import { join } from "node:path";
import { fsErrorCode, isNotFound } from "./errors.ts";
import { localWorkspace } from "./local.ts";

const ws = localWorkspace();

Deno.test("local workspace errors carry errno codes the tools test for", async () => {
  const dir = await ws.makeTempDir({ prefix: "reasonix-ws-" });
  try {
    const missing = await ws.stat(join(dir, "missing")).catch((e) => e);
    assert.ok(isNotFound(missing));
    await ws.writeFile(join(dir, "f"), new TextEncoder().encode("x"));
    const exists = await ws.writeFile(join(dir, "f"), new Uint8Array(), { createNew: true })
      .catch((e) => e);
    assert.equal(fsErrorCode(exists), "EEXIST");
    assert.equal(fsErrorCode(await ws.readFile(dir).catch((e) => e)), "EISDIR");
    assert.equal(fsErrorCode(await ws.stat(join(dir, "f", "x")).catch((e) => e)), "ENOTDIR");
    await ws.symlink("loop", join(dir, "loop"));
    assert.equal(fsErrorCode(await ws.realPath(join(dir, "loop")).catch((e) => e)), "ELOOP");
    const aborted = AbortSignal.abort(new Error("stop"));
    await assert.rejects(ws.stat(dir, { signal: aborted }), /stop/);
  } finally {
    await ws.remove(dir, { recursive: true });
  }
});

Deno.test("local workspace streams a process's output and reports its status", async () => {
  const child = await ws.spawn(["sh", "-c", "printf out; printf err >&2; exit 3"], {
    cwd: "/",
  });
  const [out, err, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.status,
  ]);
  assert.deepEqual([out, err, status.code, status.success], ["out", "err", 3, false]);
  const quiet = await ws.spawn(["sh", "-c", "echo hidden"], {
    cwd: "/",
    stdout: "null",
    stderr: "null",
    env: { X: "1" },
  });
  assert.equal(await new Response(quiet.stdout).text(), "");
  assert.equal((await quiet.status).code, 0);
  await assert.rejects(ws.spawn(["true"], { cwd: "/nonexistent-dir" }), (e) => isNotFound(e));
});

Deno.test("local workspace kills a whole process group", async () => {
  const setsid = (await ws.stat("/usr/bin/setsid").catch(() => undefined)) ? "/usr/bin/setsid" : "";
  if (!setsid) return;
  // The shell's background child holds stdout: it ends only when the group is killed.
  const child = await ws.spawn([setsid, "sh", "-c", "echo started; sleep 30 & wait"], {
    cwd: "/",
  });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await reader.read()).value, "started\n");
  child.kill("SIGKILL", { group: true });
  assert.equal((await child.status).signal, "SIGKILL");
  // Only the group kill ends the background `sleep` that holds the output open.
  const ended = await Promise.race([
    reader.read().then((r) => r.done),
    new Promise((resolve) => setTimeout(resolve, 5000, "still open")),
  ]);
  assert.equal(ended, true, "the background child was killed too");
  await child.stderr.cancel();
  child.kill("SIGTERM", { group: true }); // harmless once gone
});
