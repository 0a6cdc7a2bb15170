/**
 * A fleet cut short by a crash resumes with `reasonix run --continue`: the items that finished
 * keep their results, the rest rerun (spec §3.14).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix, spawnReasonix } from "./support.ts";
import { delegate, firstUser, isChild, script, steps } from "./delegation_support.ts";

const PLAN = {
  tasks: [
    { id: "a", prompt: "alpha: read quickly", read_only: true },
    { id: "b", prompt: "bravo: take long" },
  ],
};

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Fleet progress files under `dir`, with their text. */
function fleetFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) walk(p);
      else if (d.endsWith(".fleet") && e.name.endsWith(".json")) out.push(Deno.readTextFileSync(p));
    }
  };
  walk(dir);
  return out;
}

async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

Deno.test("a half-finished fleet resumes after a crash: finished items keep their results, the rest rerun", async () => {
  const first = await startFakeLlm({
    script: script(delegate(PLAN), {
      alpha: steps({ text: "alpha result" }),
      bravo: steps({
        toolCalls: [fakeToolCall("bash", { command: "touch bravo.marker && sleep 30" })],
      }),
    }),
  });
  const repo = await makeRepo({});
  const home = await makeHome(first.url);
  const child = spawnReasonix(["run", "--permission-mode", "auto", "run the fleet"], repo, home);
  try {
    await waitFor(
      () =>
        exists(join(repo, "bravo.marker")) &&
        fleetFiles(home).some((t) => t.includes("alpha result")),
      "item a to finish and item b to be running",
    );
    child.kill("SIGKILL");
    assert.equal((await child.status).signal, "SIGKILL");
    await child.stdout.cancel();
    await child.stderr.cancel();

    const second = await startFakeLlm({
      script: script(delegate(PLAN), {
        alpha: steps({ text: "alpha again (must not run)" }),
        bravo: steps({ text: "bravo result" }),
      }),
    });
    try {
      await Deno.writeTextFile(
        join(home, "config.toml"),
        (await Deno.readTextFile(join(home, "config.toml"))).replace(first.url, second.url),
      );
      const out = await runReasonix(
        ["run", "--continue", "--json", "--permission-mode", "auto", "go on"],
        { cwd: repo, home },
      );
      assert.equal(out.code, 0, out.stderr);
      const summary = JSON.parse(out.stdout);
      assert.match(summary.result, /alpha result/);
      assert.match(summary.result, /bravo result/);
      assert.match(summary.result, /Fleet: a: done; b: done/);
      const children = second.requests.filter(isChild).map(firstUser);
      assert.ok(children.length > 0 && children.every((t) => t.includes("bravo:")), "only b reran");
      // Only the rerun counts as a run of this turn; the kept one was counted when it ran.
      assert.equal(summary.subagent_runs, 1);
      // Nor is its usage paid again: the children's share is the rerun's requests alone.
      const rerun = second.requests.filter(isChild)
        .reduce((n, r) => n + Math.ceil(new TextEncoder().encode(r.bodyText).byteLength / 4), 0);
      assert.ok(
        summary.subagents.tokens.prompt <= rerun,
        `${summary.subagents.tokens.prompt} > ${rerun}`,
      );
    } finally {
      await second.close();
    }
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await first.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
