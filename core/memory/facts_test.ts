import assert from "node:assert/strict";
import { join } from "node:path";
import { FactStore, MemoryError } from "./facts.ts";

async function withStore(
  fn: (store: FactStore, dirs: { project: string; global: string }) => Promise<void>,
) {
  const root = await Deno.makeTempDir({ prefix: "reasonix-facts-" });
  const dirs = { project: join(root, "p"), global: join(root, "g") };
  try {
    await fn(new FactStore({ projectDir: dirs.project, globalDir: dirs.global }), dirs);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("facts get an immutable id, a revision, times, a type and a scope", async () => {
  await withStore(async (store, dirs) => {
    const fact = await store.create({
      text: "Tests run with deno task test",
      type: "project",
      scope: "project",
    });
    assert.match(fact.id, /^f_[a-z0-9]{12}$/);
    assert.equal(fact.revision, 1);
    assert.equal(fact.created, fact.updated);
    const onDisk = JSON.parse(await Deno.readTextFile(join(dirs.project, `${fact.id}.json`)));
    assert.deepEqual(onDisk, fact);
    assert.equal((await Deno.stat(join(dirs.project, `${fact.id}.json`))).mode! & 0o777, 0o600);
  });
});

Deno.test("updates snapshot the previous revision and refuse a stale one", async () => {
  await withStore(async (store, dirs) => {
    const v1 = await store.create({ text: "uses npm", type: "project", scope: "project" });
    const v2 = await store.update(v1.id, 1, { text: "uses deno" });
    assert.equal(v2.revision, 2);
    assert.equal(v2.id, v1.id);
    assert.equal(v2.created, v1.created);
    const snapshot = JSON.parse(
      await Deno.readTextFile(join(dirs.project, "history", v1.id, "1.json")),
    );
    assert.equal(snapshot.text, "uses npm");
    await assert.rejects(() => store.update(v1.id, 1, { text: "stale" }), /revision 2, not 1/);
  });
});

Deno.test("forget archives and restore brings a fact back at a higher revision", async () => {
  await withStore(async (store) => {
    const fact = await store.create({ text: "prefers tabs", type: "user", scope: "global" });
    const archived = await store.archive(fact.id, 1);
    assert.equal(archived.revision, 2);
    assert.deepEqual(await store.list(), []);
    assert.equal((await store.archived())[0].id, fact.id);
    const restored = await store.restore(fact.id);
    assert.equal(restored.revision, 3);
    assert.equal(restored.archived, undefined);
    assert.equal((await store.list())[0].text, "prefers tabs");
  });
});

Deno.test("path escapes, symlinks and overwrites are refused", async () => {
  await withStore(async (store, dirs) => {
    await assert.rejects(() => store.update("../../etc/passwd", 1, { text: "x" }), MemoryError);
    await assert.rejects(() => store.archive("f_../x", 1), /not a fact id/);
    // A planted symlink where a fact file would be.
    const fact = await store.create({ text: "a", type: "project", scope: "project" });
    const outside = await Deno.makeTempFile();
    await Deno.remove(join(dirs.project, `${fact.id}.json`));
    await Deno.symlink(outside, join(dirs.project, `${fact.id}.json`));
    await assert.rejects(() => store.update(fact.id, 1, { text: "b" }), /symbolic link/);
    assert.equal(await Deno.readTextFile(outside), "");
    await Deno.remove(outside);
    // A symlinked scope directory.
    await Deno.remove(dirs.global, { recursive: true }).catch(() => {});
    const elsewhere = await Deno.makeTempDir();
    await Deno.symlink(elsewhere, dirs.global);
    await assert.rejects(
      () => store.create({ text: "g", type: "user", scope: "global" }),
      /symbolic link/,
    );
    assert.deepEqual([...Deno.readDirSync(elsewhere)], []);
    await Deno.remove(elsewhere, { recursive: true });
  });
});
