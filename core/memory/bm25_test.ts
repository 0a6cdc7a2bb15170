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
