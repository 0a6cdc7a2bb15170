import assert from "node:assert/strict";
import { candidateTargets, findReferenceTokens, splitResourceTarget } from "./parse.ts";

Deno.test("@ tokens start at the text start or after whitespace, never inside an e-mail", () => {
  const text = 'Ask bob@example.com about @src/a.ts, (@b.md) and @"my notes.txt" @@x';
  assert.deepEqual(findReferenceTokens(text).map((t) => [t.target, t.quoted]), [
    ["src/a.ts,", false],
    ["b.md)", false],
    ["my notes.txt", true],
    ["@x", false],
  ]);
  const [first] = findReferenceTokens("@README.md please");
  assert.deepEqual(first, { start: 0, end: 10, target: "README.md", quoted: false });
});

Deno.test("trailing sentence punctuation is tried as a shorter candidate", () => {
  const [token] = findReferenceTokens("see @README.md.");
  assert.deepEqual(candidateTargets(token), ["README.md.", "README.md"]);
  const [quoted] = findReferenceTokens('@"a b."');
  assert.deepEqual(candidateTargets(quoted), ["a b."]);
});

Deno.test("server:uri targets split at the first colon", () => {
  assert.deepEqual(splitResourceTarget("docs:file:///guide.md"), {
    server: "docs",
    uri: "file:///guide.md",
  });
  assert.equal(splitResourceTarget("src/a.ts"), undefined);
  assert.equal(splitResourceTarget("x:"), undefined);
});
