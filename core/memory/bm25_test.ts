import assert from "node:assert/strict";
import { Bm25Index, tokenize } from "./bm25.ts";

Deno.test("tokenize splits code identifiers into their parts too", () => {
  assert.deepEqual(tokenize("parseHTTPHeader read_file"), [
    "parsehttpheader",
    "parse",
    "http",
    "header",
    "read_file",
    "read",
    "file",
  ]);
});

Deno.test("tokenize indexes CJK runs as characters and overlapping pairs", () => {
  assert.deepEqual(tokenize("上下文管理"), [
    "上",
    "上下",
    "下",
    "下文",
    "文",
    "文管",
    "管",
    "管理",
    "理",
  ]);
  assert.deepEqual(tokenize("修复bug"), ["修", "修复", "复", "bug"]);
});

Deno.test("BM25 ranks rarer and more frequent terms higher, and short documents first", () => {
  const index = new Bm25Index();
  index.add(10, "the build failed in the parser module");
  index.add(11, "the parser parser parser");
  index.add(12, "the weather is nice");
  index.add(13, "compaction summary of the parser work and many other unrelated words here");
  const hits = index.search("parser");
  assert.deepEqual(hits.map((h) => h.id), [11, 10, 13]);
  assert.ok(hits[0].score > hits[1].score);
  assert.deepEqual(index.search("nothing-like-this"), []);
});

Deno.test("BM25 finds Chinese text by a sub-phrase", () => {
  const index = new Bm25Index();
  index.add(1, "我们决定把上下文压缩阈值设为百分之八十");
  index.add(2, "今天修复了登录页面的样式问题");
  assert.equal(index.search("压缩阈值")[0].id, 1);
  assert.equal(index.search("登录")[0].id, 2);
});

Deno.test("BM25 keeps the best of equal scores by the tie order, past a full top-k", () => {
  const index = new Bm25Index();
  for (let id = 0; id < 20; id++) index.add(id, "same words here");
  // Every document scores the same; the tie order alone decides which five are kept.
  const newest = index.search("words", 5, { tieBreak: (a, b) => b - a });
  assert.deepEqual(newest.map((h) => h.id), [19, 18, 17, 16, 15]);
  assert.deepEqual(index.search("words", 5).map((h) => h.id), [0, 1, 2, 3, 4]);
  const even = index.search("words", 3, { accept: (id) => id % 2 === 0 });
  assert.deepEqual(even.map((h) => h.id), [0, 2, 4]);
});

Deno.test("BM25 scores by the Okapi formula with k1 = 1.2 and b = 0.75", () => {
  const index = new Bm25Index();
  index.add(1, "alpha beta");
  index.add(2, "alpha gamma gamma gamma");
  // n = 2, df(beta) = 1, average length 3: idf · tf · 2.2 / (tf + 1.2 · (0.25 + 0.75 · 2/3)).
  const [hit] = index.search("beta");
  const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
  assert.ok(Math.abs(hit.score - idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 3))) < 1e-12);
  const gammaScore = idf * 3 * 2.2 / (3 + 1.2 * (0.25 + 0.75 * 4 / 3));
  assert.ok(Math.abs(index.search("gamma")[0].score - gammaScore) < 1e-12);
  // A stored index scores its coded postings the same way.
  const loaded = Bm25Index.load(index.serialize());
  assert.ok(Math.abs(loaded.search("beta")[0].score - hit.score) < 1e-12);
  assert.ok(Math.abs(loaded.search("gamma")[0].score - gammaScore) < 1e-12);
});
