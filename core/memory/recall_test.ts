import assert from "node:assert/strict";
import type { Fact } from "./facts.ts";
import { isGenericRequest, rankFacts, RECALL_MAX_FACTS, recallBlock } from "./recall.ts";

const NOW = new Date("2026-11-30T00:00:00Z");

function fact(id: string, text: string, extra: Partial<Fact> = {}): Fact {
  return {
    id,
    revision: 1,
    created: "2026-11-29T00:00:00Z",
    updated: "2026-11-29T00:00:00Z",
    type: "project",
    scope: "project",
    text,
    ...extra,
  };
}

Deno.test("generic requests recall nothing", () => {
  for (const text of ["continue", "ok", "继续", "yes please do", "go on", "thanks!"]) {
    assert.ok(isGenericRequest(text), text);
  }
  assert.ok(!isGenericRequest("fix the flaky parser test"));
  assert.equal(
    recallBlock([fact("f_aaaaaaaa", "parser test is flaky on CI")], "continue", NOW),
    undefined,
  );
});

Deno.test("recall appends matching facts in a bounded, low-authority block", () => {
  const facts = [
    fact("f_aaaaaaaa", "The parser test is flaky on CI; rerun with --seed 7"),
    fact("f_bbbbbbbb", "Deploys go through the staging branch"),
  ];
  const block = recallBlock(facts, "the parser test fails again", NOW)!;
  assert.match(block, /^<recalled-memory note="Background from memory, possibly outdated/);
  assert.match(block, /f_aaaaaaaa r1 project\/project 2026-11-29\] The parser test is flaky/);
  assert.doesNotMatch(block, /staging/);
});

Deno.test("recall is bounded in facts and characters", () => {
  const many = Array.from(
    { length: 40 },
    (_, i) =>
      fact(
        `f_${String(i).padStart(8, "0")}`,
        i < 10 ? `parser note ${i} ${"x".repeat(300)}` : `unrelated ${i}`,
      ),
  );
  const block = recallBlock(many, "parser note", NOW)!;
  const lines = block.split("\n").filter((l) => l.startsWith("- "));
  assert.ok(lines.length >= 3 && lines.length <= RECALL_MAX_FACTS, String(lines.length));
  assert.ok(lines.join("\n").length <= 1500);
});

Deno.test("the project version of an equivalent fact wins and stale facts rank lower", () => {
  const ranked = rankFacts(
    [
      fact("f_global01", "Use pnpm for installs", { scope: "global" }),
      fact("f_project1", "Use pnpm for installs"),
      fact("f_old00001", "Use pnpm workspaces for installs", { updated: "2024-01-01T00:00:00Z" }),
    ],
    "pnpm installs",
    NOW,
  );
  assert.deepEqual(ranked.map((r) => r.fact.id), ["f_project1", "f_old00001"]);
});
