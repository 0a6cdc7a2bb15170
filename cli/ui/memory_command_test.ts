import assert from "node:assert/strict";
import { join } from "node:path";
import { startUiSession } from "../../tests/support/ui_session.ts";
import { FactStore } from "../../core/memory/facts.ts";
import { memoryCommand } from "./memory_command.ts";

Deno.test("/memory lists facts, forgotten ones and revisions, and restores one", async () => {
  const s = await startUiSession({ script: [] });
  try {
    const store = s.host.facts;
    const kept = await store.create({
      text: "CI runs on Node 20",
      type: "project",
      scope: "project",
    });
    const v1 = await store.create({ text: "prefers tabs", type: "user", scope: "global" });
    await store.update(v1.id, 1, { text: "prefers spaces" });
    await store.archive(v1.id, 2);
    const last = () => s.lines().at(-1)!;

    await s.controller.submit("/memory");
    await s.controller.idle();
    assert.match(last(), /^panel Remembered facts \(1\): - \[f_\w+ r1 project\/project .*Node 20/);
    assert.match(last(), /1 forgotten fact\(s\): \/memory forgotten lists them/);

    await s.controller.submit("/memory forgotten");
    await s.controller.idle();
    assert.match(
      last(),
      new RegExp(`^panel Forgotten facts \\(1\\): - \\[${v1.id} r3 global/user`),
    );

    await s.controller.submit(`/memory ${v1.id}`);
    await s.controller.idle();
    assert.match(last(), /r1 .*prefers tabs \| .* r2 .*prefers spaces \| .* r3 .*\(forgotten\)/);

    await s.controller.submit(`/memory restore ${v1.id} 1`);
    await s.controller.idle();
    assert.equal(last(), `info: Restored revision 1 of ${v1.id} as revision 4: prefers tabs`);
    const active = await store.list();
    assert.deepEqual(
      active.map((f) => [f.id, f.revision, f.text]).sort(),
      [
        [kept.id, 1, "CI runs on Node 20"],
        [v1.id, 4, "prefers tabs"],
      ].sort(),
    );
    assert.deepEqual(await store.archived(), []);

    await s.controller.submit(`/memory restore ${v1.id} 4`);
    await s.controller.idle();
    assert.match(last(), /^error: revision 4 of f_\w+ is already current/);

    await s.controller.submit("/memory node");
    await s.controller.idle();
    assert.match(last(), /^panel Facts matching "node": .*Node 20/);
    // Nothing here talked to the model.
    assert.equal(s.fake.requests.length, 0);
  } finally {
    await s.close();
  }
});

Deno.test("/memory restore brings a forgotten fact back and refuses bad input", async () => {
  const root = await Deno.makeTempDir();
  const store = new FactStore({ projectDir: join(root, "p"), globalDir: join(root, "g") });
  try {
    const fact = await store.create({ text: "uses deno", type: "project", scope: "project" });
    await store.archive(fact.id, 1);
    const back = await memoryCommand(store, `restore ${fact.id}`);
    assert.deepEqual(back, {
      kind: "notice",
      level: "info",
      text: `Restored revision 2 of ${fact.id} as revision 3: uses deno`,
    });
    for (const args of ["restore", `restore ${fact.id} zero`, `restore ${fact.id} 1 2`]) {
      const result = await memoryCommand(store, args);
      assert.ok(result.kind === "notice" && result.level === "error", args);
      assert.match(result.text, /^Usage: \/memory restore/);
    }
    const active = await memoryCommand(store, `restore ${fact.id}`);
    assert.ok(active.kind === "notice" && active.level === "error");
    assert.match(active.text, /is active; name the revision/);
    const unknown = await memoryCommand(store, "restore f_nosuchfact1 1");
    assert.ok(unknown.kind === "notice" && /no fact f_nosuchfact1/.test(unknown.text));
    assert.deepEqual(await memoryCommand(store, "forgotten"), {
      kind: "notice",
      level: "info",
      text: "No forgotten facts.",
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
