import assert from "node:assert/strict";
import { join } from "node:path";
import { openSession } from "./session_store.ts";
import { listSessions } from "./sessions.ts";
import { indexDir, SESSION_INDEX_VERSION } from "./session_index.ts";
import { readTranscript } from "./transcript.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-list-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes `count` sessions, oldest first, a second apart; returns their ids, oldest first. */
async function seed(dir: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const opened = await openSession({ dir, workspace: "/w", model: "p/m" });
    opened.session.append({ role: "user", content: `<date>x</date>\ntask   number ${i}` });
    for (let k = 0; k < i; k++) opened.session.append({ role: "assistant", content: `a${k}` });
    opened.writer.close();
    const when = new Date(Date.now() - (count - i) * 1000);
    await Deno.utime(opened.writer.path, when, when);
    ids.push(opened.session.id);
  }
  return ids;
}

function indexEntries(dir: string): Record<string, { messages: number; read: number }> {
  return JSON.parse(Deno.readTextFileSync(join(indexDir(dir), "sessions.json"))).entries;
}

Deno.test("a listing page reads only its own files and stays current as transcripts grow", async () => {
  await withDir(async (dir) => {
    const ids = await seed(dir, 5);
    const page = await listSessions(dir, { limit: 2 });
    assert.deepEqual(page.map((s) => [s.meta.id, s.title, s.messages]), [
      [ids[4], "task number 4", 5],
      [ids[3], "task number 3", 4],
    ]);
    // Only the page's transcripts were read.
    assert.deepEqual(
      Object.keys(indexEntries(dir)).sort(),
      [
        `${ids[3]}.jsonl`,
        `${ids[4]}.jsonl`,
      ].sort(),
    );
    const next = await listSessions(dir, { offset: 2, limit: 2 });
    assert.deepEqual(next.map((s) => s.meta.id), [ids[2], ids[1]]);

    const resumed = await openSession({ dir, workspace: "/w", model: "p/m", resume: ids[0] });
    resumed.session.append({ role: "assistant", content: "more" });
    resumed.session.append({ role: "user", content: "and more" });
    resumed.writer.close();
    const before = indexEntries(dir)[`${ids[4]}.jsonl`];
    const all = await listSessions(dir);
    assert.deepEqual(all.map((s) => [s.meta.id, s.messages]), [
      [ids[0], 3],
      [ids[4], 5],
      [ids[3], 4],
      [ids[2], 3],
      [ids[1], 2],
    ]);
    assert.equal(all[0].title, "task number 0", "the title is the first request, kept");
    assert.deepEqual(indexEntries(dir)[`${ids[4]}.jsonl`], before, "unchanged entries stay");
  });
});

Deno.test("a damaged, foreign or out-of-date listing index is not trusted", async () => {
  await withDir(async (dir) => {
    const ids = await seed(dir, 3);
    const expected = (await listSessions(dir)).map((s) => [s.meta.id, s.title, s.messages]);
    const file = join(indexDir(dir), "sessions.json");
    await Deno.writeTextFile(file, '{"v":1,"entries":{"x":'); // torn
    assert.deepEqual(
      (await listSessions(dir)).map((s) => [s.meta.id, s.title, s.messages]),
      expected,
    );
    // An index older than its transcripts (another process appended since) is caught up.
    const old = await Deno.readTextFile(file);
    const resumed = await openSession({ dir, workspace: "/w", model: "p/m", resume: ids[1] });
    resumed.session.append({ role: "assistant", content: "later" });
    resumed.writer.close();
    await Deno.writeTextFile(file, old);
    const grown = await listSessions(dir);
    assert.deepEqual(grown.map((s) => [s.meta.id, s.messages]), [
      [ids[1], 3],
      [ids[2], 3],
      [ids[0], 1],
    ]);
    expected.splice(0, 3, ...grown.map((s) => [s.meta.id, s.title, s.messages]));
    // Another version of the index is ignored, even when its entries look current.
    const current = JSON.parse(await Deno.readTextFile(file));
    for (const entry of Object.values(current.entries) as { messages: number }[]) {
      entry.messages = 99;
    }
    await Deno.writeTextFile(file, JSON.stringify({ ...current, v: SESSION_INDEX_VERSION + 1 }));
    assert.deepEqual(
      (await listSessions(dir)).map((s) => [s.meta.id, s.title, s.messages]),
      expected,
    );
    // A transcript replaced in place (same size, new first request) is read afresh.
    const path = join(dir, `${ids[2]}.jsonl`);
    await Deno.writeTextFile(
      path,
      (await Deno.readTextFile(path)).replace("number 2", "NUMBER 2"),
    );
    const replaced = (await listSessions(dir)).find((s) => s.meta.id === ids[2]);
    assert.equal(replaced?.title, "task NUMBER 2");
    // Rewritten larger, keeping the first line or not, is read afresh.
    const other = join(dir, `${ids[0]}.jsonl`);
    const text0 = await Deno.readTextFile(other);
    await Deno.writeTextFile(other, text0.replace("number 0", "number zero"));
    let listed = (await listSessions(dir)).find((s) => s.meta.id === ids[0]);
    assert.equal(listed?.title, "task number zero");
    await Deno.writeTextFile(
      other,
      text0.replace('"model":"p/m"', '"model":"p/mm"').replace("number 0", "number zero!"),
    );
    listed = (await listSessions(dir)).find((s) => s.meta.id === ids[0]);
    assert.deepEqual([listed?.title, listed?.meta.model], ["task number zero!", "p/mm"]);
    // Another first line of the same length, the rest kept and more appended: read afresh.
    const more = JSON.stringify({ t: "msg", i: 1, m: { role: "assistant", content: "x" } });
    await Deno.writeTextFile(
      other,
      (await Deno.readTextFile(other)).replace('"model":"p/mm"', '"model":"p/xx"') + more + "\n",
    );
    listed = (await listSessions(dir)).find((s) => s.meta.id === ids[0]);
    assert.deepEqual([listed?.meta.model, listed?.messages], ["p/xx", 2]);
    // Duplicated lines count once, as resuming reads them.
    const text2 = await Deno.readTextFile(path);
    const lines = text2.trimEnd().split("\n");
    await Deno.writeTextFile(path, [...lines, lines.at(-1)!, lines.at(-1)!].join("\n") + "\n");
    const duplicated = (await listSessions(dir)).find((s) => s.meta.id === ids[2]);
    assert.equal(duplicated?.messages, (await readTranscript(path))?.messages.length);
  });
});

Deno.test("listings running at the same time leave a whole listing index", async () => {
  await withDir(async (dir) => {
    await seed(dir, 6);
    const expected = await listSessions(dir);
    await Deno.remove(indexDir(dir), { recursive: true });
    const all = await Promise.all([0, 1, 2, 3].map((i) => listSessions(dir, { offset: i })));
    all.forEach((got, i) => assert.deepEqual(got, expected.slice(i)));
    assert.equal(Object.keys(indexEntries(dir)).length, 6);
    assert.deepEqual(await listSessions(dir), expected);
  });
});

Deno.test("--resume takes an exact id even when it is a prefix of another", async () => {
  await withDir(async (dir) => {
    const [id] = await seed(dir, 1);
    const longer = `${id}-copy`;
    const text = await Deno.readTextFile(join(dir, `${id}.jsonl`));
    await Deno.writeTextFile(join(dir, `${longer}.jsonl`), text.replaceAll(id, longer));
    const exact = await openSession({ dir, workspace: "/w", model: "p/m", resume: id });
    assert.equal(exact.session.id, id);
    exact.writer.close();
    await assert.rejects(
      () => openSession({ dir, workspace: "/w", model: "p/m", resume: id.slice(0, 8) }),
      /several sessions/,
    );
  });
});

const strace = await new Deno.Command("strace", { args: ["-V"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);

Deno.test({
  name: "--continue and --resume open no transcript but the one they resume",
  ignore: !strace || Deno.build.os !== "linux",
  fn: async () => {
    await withDir(async (dir) => {
      const ids = await seed(dir, 12);
      // The newest by modification time, whatever its name.
      const newest = ids[3];
      await Deno.utime(join(dir, `${newest}.jsonl`), new Date(), new Date());
      const script = join(dir, "resume.ts");
      await Deno.writeTextFile(
        script,
        `import { openSession } from ${JSON.stringify(import.meta.resolve("./session_store.ts"))};
const [dir, target] = Deno.args;
for (const resume of ["latest", target.slice(0, 6), target]) {
  const opened = await openSession({ dir, workspace: "/w", model: "p/m", resume });
  console.log(opened.session.id);
  opened.writer.close();
}`,
      );
      const trace = join(dir, "trace.txt");
      const out = await new Deno.Command("strace", {
        args: [
          "-f",
          "-qq",
          "-e",
          "trace=open,openat",
          "-o",
          trace,
          Deno.execPath(),
          "run",
          "-A",
          script,
          dir,
          ids[7],
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
      assert.deepEqual(new TextDecoder().decode(out.stdout).trim().split("\n"), [
        newest,
        ids[7],
        ids[7],
      ]);
      const opened = new Set(
        [...(await Deno.readTextFile(trace)).matchAll(/"([^"]+\.jsonl)"/g)].map((m) => m[1]),
      );
      assert.deepEqual(
        [...opened].sort(),
        [join(dir, `${ids[7]}.jsonl`), join(dir, `${newest}.jsonl`)].sort(),
      );
    });
  },
});
