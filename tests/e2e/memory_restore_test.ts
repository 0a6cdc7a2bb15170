/**
 * Memory recovery through the real CLI and the fake LLM server: the model lists forgotten
 * facts and a fact's revisions without asking, and restoring one is a memory write, so a
 * headless run fails closed unless a rule allows `Memory`; allowed, it creates a higher
 * revision with the old text.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FactStore } from "../../core/memory/facts.ts";
import { projectKey } from "../../core/store/sessions.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

interface Body {
  messages: { role: string; content: string | null }[];
}

function toolResults(body: unknown): string[] {
  return (body as Body).messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
}

Deno.test("the memory tool lists forgotten facts and revisions and restores one as a write", async () => {
  const repo = await makeRepo({});
  // The fact's id must be in the script, so the store is filled before the server starts.
  const root = await Deno.makeTempDir();
  const seedHome = join(root, "seed");
  const key = await projectKey(await Deno.realPath(repo));
  const dirs = (home: string) => ({
    projectDir: join(home, "memory", "projects", key),
    globalDir: join(home, "memory", "global"),
  });
  const seed = new FactStore(dirs(seedHome));
  const fact = await seed.create({
    text: "Release with make dist",
    type: "project",
    scope: "project",
  });
  await seed.update(fact.id, 1, { text: "Release with deno task bundle" });
  await seed.archive(fact.id, 2);
  const restoreCall = {
    name: "memory",
    arguments: JSON.stringify({ id: fact.id, restore: 1 }),
  };
  const fake = await startFakeLlm({
    script: [
      {
        toolCalls: [
          { name: "memory", arguments: JSON.stringify({ archived: true, query: "release" }) },
          { name: "memory", arguments: JSON.stringify({ id: fact.id }) },
          restoreCall,
        ],
      },
      { text: "Could not restore." },
      { toolCalls: [restoreCall] },
      { text: "Restored." },
    ],
  });
  const home = await makeHome(fake.url);
  try {
    await Deno.rename(join(seedHome, "memory"), join(home, "memory"));
    const store = new FactStore(dirs(home));

    const first = await runReasonix(["run", "bring back the release fact"], { cwd: repo, home });
    // The restore needed an approver: the run finished, with that action refused.
    assert.equal(first.code, 3, first.stderr);
    const [forgotten, revisions, refused] = toolResults(fake.requests[1].body);
    assert.match(forgotten, new RegExp(`^- \\[${fact.id} r3 project/project .*deno task bundle$`));
    assert.match(revisions, /r1 .*make dist\n.* r2 .*deno task bundle\n.* r3 .*\(forgotten\)$/);
    assert.match(refused, /Memory/);
    assert.match(refused, /--allow|--permission-mode/);
    assert.deepEqual(await store.list(), []);

    const second = await runReasonix(
      ["run", "--allow", "Memory", "bring back the release fact"],
      { cwd: repo, home },
    );
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(toolResults(fake.requests[3].body), [
      `Restored revision 1 of ${fact.id} as revision 4.`,
    ]);
    const [restored] = await store.list();
    assert.equal(restored.revision, 4);
    assert.equal(restored.text, "Release with make dist");
    assert.deepEqual(await store.archived(), []);
    // The tool list did not change between the runs.
    const tools = (n: number) =>
      JSON.stringify((fake.requests[n].body as { tools: unknown }).tools);
    assert.equal(tools(2), tools(0));
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
    await Deno.remove(root, { recursive: true });
  }
});
