import assert from "node:assert/strict";
import { join } from "node:path";
import type { Message } from "../../providers/types.ts";
import { readTranscript } from "../store/transcript.ts";
import { type Archive, type HistoryHit, HistoryIndex } from "./history.ts";
import { decodeHistory, historyIndexPath } from "./history_store.ts";

/** A deterministic corpus: prose, identifiers, CJK, tool calls, repeats (equal scores). */
function corpus(seed: number, count: number): Message[] {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const words = [
    "parser",
    "token",
    "build",
    "failed",
    "cache",
    "prefix",
    "session",
    "the",
    "a",
    "is",
    "parseHTTPHeader",
    "read_file",
    "上下文压缩",
    "修复bug",
    "登录页面",
    "retry",
    "compaction",
    "summary",
  ];
  const out: Message[] = [];
  for (let i = 0; i < count; i++) {
    const text = Array.from({ length: 3 + Math.floor(random() * 12) }, () => pick(words)).join(
      " ",
    );
    const kind = i % 5;
    if (kind === 0) {
      out.push({ role: "user", content: `<environment>\nos\n</environment>\n\n${text}` });
    } else if (kind === 1) {
      out.push({
        role: "assistant",
        content: random() < 0.3 ? "" : text,
        toolCalls: [{
          id: `c${seed}_${i}`,
          name: "grep",
          arguments: `{"pattern":"${pick(words)}"}`,
        }],
      });
    } else if (kind === 2) {
      out.push({ role: "tool", toolCallId: `c${seed}_${i - 1}`, name: "grep", content: text });
    } else if (kind === 3) out.push({ role: "assistant", content: "the build failed" }); // ties
    else out.push({ role: "assistant", content: text });
  }
  return out;
}

function transcript(id: string, messages: readonly Message[]): string {
  const meta = { id, created: "2026-11-01T00:00:00.000Z", workspace: "/w", model: "p/m" };
  return [
    JSON.stringify({ t: "session", v: 1, meta }),
    ...messages.map((m, i) => JSON.stringify({ t: "msg", i, m })),
  ].join("\n") + "\n";
}

const QUERIES = [
  "parser",
  "the build failed",
  "parse header",
  "read_file",
  "压缩",
  "登录",
  "bug retry",
  "cache prefix session",
  "nothing-like-this",
];

type Variant = (
  dir: string,
  live: { id: string; messages: () => readonly Message[] },
) => HistoryIndex;

const stored: Variant = (dir, live) =>
  new HistoryIndex({
    sessionId: live.id,
    messages: live.messages,
    store: { dir, currentId: () => live.id },
  });

/** The archives as the host used to load them: every other transcript, parsed whole. */
const inMemory: Variant = (dir, live) =>
  new HistoryIndex({
    sessionId: live.id,
    messages: live.messages,
    archives: async () => {
      const out: Archive[] = [];
      for await (const entry of Deno.readDir(dir)) {
        if (!entry.name.endsWith(".jsonl")) continue;
        const loaded = await readTranscript(join(dir, entry.name));
        if (loaded && loaded.meta.id !== live.id) {
          out.push({ id: loaded.meta.id, messages: loaded.messages });
        }
      }
      return out;
    },
  });

async function results(index: HistoryIndex): Promise<HistoryHit[][]> {
  const out: HistoryHit[][] = [];
  for (const query of QUERIES) {
    for (const limit of [3, 8, 30]) out.push(await index.search(query, { limit }));
    out.push(await index.search(query, { scope: "session", limit: 5 }));
  }
  await index.flush();
  return out;
}

async function withArchive(
  fn: (dir: string, live: { id: string; messages: () => readonly Message[] }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-history-" });
  try {
    for (let s = 0; s < 6; s++) {
      await Deno.writeTextFile(join(dir, `s${s}.jsonl`), transcript(`s${s}`, corpus(s + 1, 40)));
    }
    // A duplicated line (read once, as resuming reads it) and a file that is not a transcript.
    const s0 = join(dir, "s0.jsonl");
    const lines = (await Deno.readTextFile(s0)).split("\n");
    await Deno.writeTextFile(s0, [...lines.slice(0, 6), lines[5], ...lines.slice(6)].join("\n"));
    await Deno.writeTextFile(
      join(dir, "junk.jsonl"),
      JSON.stringify({ t: "msg", i: 0, m: { role: "user", content: "parser zebra" } }) + "\n",
    );
    // The running session was resumed: its transcript is in the archive directory too.
    const messages = [...corpus(99, 30), { role: "user", content: "parser again" } as Message];
    // Named to sort after the archives: equal scores still rank it first.
    await Deno.writeTextFile(join(dir, "zlive.jsonl"), transcript("zlive", messages.slice(0, 30)));
    await fn(dir, { id: "zlive", messages: () => messages });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a stored history index answers exactly as a fresh one, also after transcripts change", async () => {
  await withArchive(async (dir, live) => {
    const expected = await results(inMemory(dir, live));
    assert.ok(expected.some((hits) => hits.length > 8), "the corpus has many hits");
    assert.ok(expected.flat().some((h) => h.current) && expected.flat().some((h) => !h.current));
    for (const hits of expected) {
      for (let i = 1; i < hits.length; i++) {
        if (hits[i].score === hits[i - 1].score && hits[i].current) {
          assert.ok(hits[i - 1].current, "on equal scores the running session comes first");
        }
      }
    }
    assert.ok(
      expected.some((hits) => hits.some((h, i) => i > 0 && h.score === hits[i - 1].score)),
      "the corpus has ties",
    );
    // Another process indexed everything, the running session's transcript included.
    await results(stored(dir, { id: "other", messages: () => [] }));
    assert.deepEqual(await results(stored(dir, live)), expected, "stored by another process");
    // The running session's own transcript grew since (it writes what it says).
    const grown = transcript("zlive", live.messages());
    await Deno.writeTextFile(join(dir, "zlive.jsonl"), grown);
    assert.deepEqual(await results(stored(dir, live)), expected, "its transcript grew");
    await Deno.remove(historyIndexPath(dir));
    assert.deepEqual(await results(stored(dir, live)), expected, "built fresh");
    const file = await Deno.readFile(historyIndexPath(dir));
    assert.ok(decodeHistory(file), "the index was saved");
    assert.deepEqual(await results(stored(dir, live)), expected, "loaded from the file");
    assert.deepEqual(await Deno.readFile(historyIndexPath(dir)), file, "unchanged, not rewritten");

    // Appended to, added, removed and replaced transcripts; the stored index is caught up.
    await Deno.writeTextFile(
      join(dir, "s1.jsonl"),
      corpus(50, 7).map((m, i) => JSON.stringify({ t: "msg", i: 40 + i, m })).join("\n") + "\n",
      { append: true },
    );
    await Deno.writeTextFile(join(dir, "s9.jsonl"), transcript("s9", corpus(9, 25)));
    await Deno.remove(join(dir, "s2.jsonl"));
    await Deno.writeTextFile(join(dir, "s3.jsonl"), transcript("s3", corpus(33, 12)));
    const changed = await results(inMemory(dir, live));
    assert.notDeepEqual(changed, expected);
    assert.deepEqual(await results(stored(dir, live)), changed, "caught up from the file");
    assert.deepEqual(await results(stored(dir, live)), changed, "loaded after catching up");
    await Deno.remove(historyIndexPath(dir));
    assert.deepEqual(await results(stored(dir, live)), changed, "rebuilt");
  });
});

Deno.test("a damaged, other-version or stale history index is rebuilt, never trusted", async () => {
  await withArchive(async (dir, live) => {
    const expected = await results(inMemory(dir, live));
    await results(stored(dir, live));
    const path = historyIndexPath(dir);
    const good = await Deno.readFile(path);
    const damages: [string, Uint8Array][] = [
      ["one flipped byte", good.map((b, i) => i === good.length - 5 ? b ^ 0x10 : b)],
      ["cut short", good.subarray(0, good.length - 100)],
      ["another version", good.map((b, i) => i === 4 ? b + 1 : b)],
      ["not an index", new TextEncoder().encode("hello")],
    ];
    for (const [what, bytes] of damages) {
      assert.equal(decodeHistory(bytes), undefined, what);
      await Deno.writeFile(path, bytes);
      assert.deepEqual(await results(stored(dir, live)), expected, what);
      assert.ok(decodeHistory(await Deno.readFile(path)), `${what}: rewritten whole`);
    }
    // A transcript cut short after the index was loaded: its hits are left out.
    const index = stored(dir, live);
    const before = await index.search("parser", { limit: 30 });
    assert.ok(before.some((h) => h.sessionId === "s5"));
    await Deno.writeTextFile(join(dir, "s5.jsonl"), "");
    const after = await index.search("parser", { limit: 30 });
    assert.deepEqual(after, before.filter((h) => h.sessionId !== "s5"));
    // A transcript rewritten in place to the same size is indexed again, not extended.
    const s4 = join(dir, "s4.jsonl");
    const text = await Deno.readTextFile(s4);
    await Deno.writeTextFile(s4, text.replaceAll("parser", "PARSER").replaceAll("cache", "zebra"));
    const hits = await stored(dir, live).search("zebra", { limit: 30 });
    assert.ok(hits.length > 0 && hits.every((h) => h.sessionId === "s4"));
    assert.deepEqual(await results(stored(dir, live)), await results(inMemory(dir, live)));
    // Rewritten larger: keeping the first line, and with another first line.
    const s1 = join(dir, "s1.jsonl");
    await Deno.writeTextFile(s1, (await Deno.readTextFile(s1)).replaceAll("cache", "cachezz"));
    const s0 = join(dir, "s0.jsonl");
    await Deno.writeTextFile(
      s0,
      transcript("s0", corpus(77, 60)).replace("2026-11-01", "2026-11-02"),
    );
    assert.deepEqual(await results(stored(dir, live)), await results(inMemory(dir, live)));
    // Another first line of the same length, the rest kept and more appended: read afresh.
    const more = JSON.stringify({ t: "msg", i: 40, m: { role: "user", content: "parser" } });
    await Deno.writeTextFile(
      s1,
      (await Deno.readTextFile(s1)).replace('"id":"s1"', '"id":"t1"') + more + "\n",
    );
    const renamed = await results(inMemory(dir, live));
    assert.ok(renamed.flat().some((h) => h.sessionId === "t1"));
    assert.deepEqual(await results(stored(dir, live)), renamed);
  });
});

Deno.test("the archive index is read only by the first search that needs earlier sessions", async () => {
  await withArchive(async (dir, live) => {
    const index = stored(dir, live);
    const own = await index.search("parser", { scope: "session" });
    assert.ok(own.length > 0 && own.every((h) => h.current));
    await index.flush();
    await assert.rejects(() => Deno.stat(historyIndexPath(dir)), Deno.errors.NotFound);
    assert.ok((await index.search("parser")).some((h) => !h.current));
    await index.flush();
    assert.ok((await Deno.stat(historyIndexPath(dir))).size > 0);
  });
});

Deno.test("concurrent writers and a crashed one leave a whole history index", async () => {
  await withArchive(async (dir, live) => {
    const expected = await results(inMemory(dir, live));
    await Deno.mkdir(join(dir, ".index"), { recursive: true });
    // A writer that died before its rename.
    await Deno.writeFile(`${historyIndexPath(dir)}.999.dead.tmp`, new Uint8Array(100));
    const all = await Promise.all([0, 1, 2, 3].map(() => results(stored(dir, live))));
    for (const got of all) assert.deepEqual(got, expected);
    assert.ok(decodeHistory(await Deno.readFile(historyIndexPath(dir))));
    assert.deepEqual(await results(stored(dir, live)), expected);
  });
});

Deno.test("small appends are read again from the transcripts; larger ones rewrite the index", async () => {
  await withArchive(async (dir, live) => {
    await results(stored(dir, live));
    const path = historyIndexPath(dir);
    const saved = await Deno.readFile(path);
    const s1 = join(dir, "s1.jsonl");
    const line = (i: number, content: string) =>
      JSON.stringify({ t: "msg", i, m: { role: "assistant", content } }) + "\n";
    await Deno.writeTextFile(s1, line(40, "a quokka appeared"), { append: true });
    const first = stored(dir, live);
    const small = await first.search("quokka");
    assert.deepEqual(small.map((h) => [h.sessionId, h.index]), [["s1", 40]]);
    await first.flush();
    assert.deepEqual(await Deno.readFile(path), saved, "not rewritten for one line");
    const big = Array.from({ length: 300 }, (_, k) => line(41 + k, `wombat ${"x ".repeat(600)}`));
    await Deno.writeTextFile(s1, big.join(""), { append: true });
    const index = stored(dir, live);
    assert.equal((await index.search("wombat", { limit: 30 })).length, 30);
    await index.flush();
    const entry = decodeHistory(await Deno.readFile(path))?.sessions.find((s) =>
      s.name === "s1.jsonl"
    );
    assert.equal(entry?.read, (await Deno.stat(s1)).size, "rewritten with the appended lines");
    assert.deepEqual(await results(stored(dir, live)), await results(inMemory(dir, live)));
    // A removed session is dropped from the file at once, however small.
    await Deno.remove(join(dir, "s4.jsonl"));
    await results(stored(dir, live));
    const names = decodeHistory(await Deno.readFile(path))?.sessions.map((s) => s.name);
    assert.ok(names && !names.includes("s4.jsonl") && names.includes("s1.jsonl"));
  });
});
