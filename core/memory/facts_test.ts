import assert from "node:assert/strict";
import { join } from "node:path";
import { FACT_FORMAT_VERSION, FactStore, MemoryError } from "./facts.ts";

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
    // The file carries its format version beside the fact's fields.
    assert.deepEqual(onDisk, { v: FACT_FORMAT_VERSION, ...fact });
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

Deno.test("restoring an earlier revision makes its text current as a higher revision", async () => {
  let clock = Date.parse("2026-01-01T00:00:00Z");
  const root = await Deno.makeTempDir({ prefix: "reasonix-facts-" });
  const store = new FactStore({
    projectDir: join(root, "p"),
    globalDir: join(root, "g"),
    now: () => new Date(clock += 1000),
  });
  try {
    const v1 = await store.create({ text: "uses npm", type: "project", scope: "project" });
    await store.update(v1.id, 1, { text: "uses deno", type: "reference" });
    const restored = await store.restore(v1.id, 1);
    assert.equal(restored.revision, 3);
    assert.equal(restored.text, "uses npm");
    assert.equal(restored.type, "project");
    assert.equal(restored.created, v1.created);
    assert.ok(restored.updated > v1.updated);
    assert.deepEqual(await store.list(), [restored]);
    // The revision it replaced was kept: every revision is listed, oldest first.
    const revisions = await store.revisions(v1.id);
    assert.deepEqual(revisions.map((f) => [f.revision, f.text]), [
      [1, "uses npm"],
      [2, "uses deno"],
      [3, "uses npm"],
    ]);
    // And can itself be restored, higher again.
    assert.equal((await store.restore(v1.id, 2)).revision, 4);
    assert.equal((await store.list())[0].text, "uses deno");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a forgotten fact's revisions are listed and any of them can come back", async () => {
  await withStore(async (store) => {
    const v1 = await store.create({ text: "prefers tabs", type: "user", scope: "global" });
    await store.update(v1.id, 1, { text: "prefers spaces" });
    await store.archive(v1.id, 2);
    const revisions = await store.revisions(v1.id);
    assert.deepEqual(revisions.map((f) => [f.revision, f.archived ?? false]), [
      [1, false],
      [2, false],
      [3, true],
    ]);
    const restored = await store.restore(v1.id, 1);
    assert.equal(restored.revision, 4);
    assert.equal(restored.text, "prefers tabs");
    assert.equal(restored.scope, "global");
    assert.deepEqual(await store.archived(), []);
    assert.equal((await store.revisions(v1.id)).at(-2)?.archived, true);
  });
});

Deno.test("restore refuses the current revision, unknown ones, conflicts and planted files", async () => {
  await withStore(async (store, dirs) => {
    const fact = await store.create({ text: "a", type: "project", scope: "project" });
    await assert.rejects(() => store.restore(fact.id), /name the revision/);
    await assert.rejects(() => store.restore(fact.id, 1), /already current/);
    await assert.rejects(() => store.restore(fact.id, 7), /no revision 7/);
    await assert.rejects(() => store.restore("f_nosuchfact1"), /no fact f_nosuchfact1/);
    await assert.rejects(() => store.restore("../../x", 1), /not a fact id/);
    await assert.rejects(() => store.revisions("../p"), /not a fact id/);

    // Active and archived at once (a copy put back by hand): refused, nothing changes.
    await store.update(fact.id, 1, { text: "b" });
    await Deno.mkdir(join(dirs.project, "archive"));
    const active = join(dirs.project, `${fact.id}.json`);
    await Deno.copyFile(active, join(dirs.project, "archive", `${fact.id}.json`));
    await assert.rejects(() => store.restore(fact.id, 1), /both active and archived/);
    assert.equal((await store.list())[0].revision, 2);
    await Deno.remove(join(dirs.project, "archive", `${fact.id}.json`));

    // A snapshot that claims another id is not restored from.
    const snapshot = join(dirs.project, "history", fact.id, "1.json");
    const planted = JSON.parse(await Deno.readTextFile(snapshot));
    await Deno.writeTextFile(snapshot, JSON.stringify({ ...planted, id: "../../../escape" }));
    await assert.rejects(() => store.restore(fact.id, 1), /no revision 1/);

    // A symlinked history directory is refused, not followed.
    const elsewhere = await Deno.makeTempDir();
    await Deno.remove(join(dirs.project, "history", fact.id), { recursive: true });
    await Deno.symlink(elsewhere, join(dirs.project, "history", fact.id));
    await assert.rejects(() => store.restore(fact.id, 1), /symbolic link/);
    assert.deepEqual([...Deno.readDirSync(elsewhere)], []);
    await Deno.remove(elsewhere, { recursive: true });
    assert.equal((await store.list())[0].text, "b");
  });
});
