/**
 * A permission mode whose commands run unasked needs its OS sandbox: when bubblewrap is
 * missing or cannot work here, `reasonix run` stops with exit 2 before the first model request,
 * naming the package and the way out, instead of failing calls mid-run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

/** A PATH of the system's bash and setsid, plus `extra` programs, but no real bwrap. */
async function pathWithout(extra: Record<string, string> = {}): Promise<string> {
  const bin = await Deno.makeTempDir({ prefix: "reasonix-nobwrap-" });
  for (const name of ["bash", "setsid", "git", "env"]) {
    for (const dir of ["/usr/bin", "/bin"]) {
      try {
        await Deno.symlink(await Deno.realPath(join(dir, name)), join(bin, name));
        break;
      } catch { /* try the next directory */ }
    }
  }
  for (const [name, script] of Object.entries(extra)) {
    await Deno.writeTextFile(join(bin, name), script, { mode: 0o755 });
  }
  return bin;
}

async function scenario(mode: string, path: string) {
  const fake = await startFakeLlm({ script: [{ text: "Done." }, { text: "Done." }] });
  const repo = await makeRepo({ "a.txt": "a\n" });
  const home = await makeHome(fake.url);
  try {
    const out = await runReasonix(["run", "--permission-mode", mode, "list the files"], {
      cwd: repo,
      home,
      env: { PATH: path },
    });
    return { ...out, requests: fake.requests.length };
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("auto without bubblewrap stops before any request, naming the package", async () => {
  const bin = await pathWithout();
  try {
    const out = await scenario("auto", bin);
    assert.equal(out.code, 2, out.stderr);
    assert.equal(out.requests, 0, "no model request was made");
    assert.match(out.stderr, /bubblewrap \(bwrap\) is not installed/);
    assert.match(out.stderr, /apt install bubblewrap/);
    assert.match(out.stderr, /--permission-mode yolo/);
    assert.doesNotMatch(out.stderr, /The command was not run/);
    // Modes that ask before each command start normally; only an approved command needs it.
    const ask = await scenario("ask", bin);
    assert.equal(ask.code, 0, ask.stderr);
    assert.equal(ask.requests, 1);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test("a bubblewrap that cannot create a sandbox here stops start-up with its reason", async () => {
  const bin = await pathWithout({
    bwrap: "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n",
  });
  try {
    const out = await scenario("auto", bin);
    assert.equal(out.code, 2, out.stderr);
    assert.equal(out.requests, 0);
    assert.match(out.stderr, /cannot create a sandbox here \(bwrap: No permissions/);
    assert.match(out.stderr, /unprivileged user namespaces/);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});
