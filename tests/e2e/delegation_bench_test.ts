/**
 * The delegation experiment harness (tests/bench/delegation) as a CI smoke run: every corpus
 * task once per arm with the fake LLM server.
 */
import assert from "node:assert/strict";
import { formatTable, runDelegationBench, verdict } from "../bench/delegation/run.ts";
import { CORPUS } from "../bench/delegation/corpus.ts";

Deno.test("the delegation harness runs every task once per arm and reads the arms from host counters", async () => {
  const rows = await runDelegationBench({ runs: 1 });
  assert.equal(rows.length, CORPUS.length * 2);
  for (const r of rows) {
    assert.equal(r.ok, 1, `${r.task} ${r.arm} did the task`);
    assert.ok(r.tokens.median > 0);
    assert.equal(r.falseCompletions.median, 0);
    // What ran, not the arm's label: only the arm with task delegates here.
    if (r.arm === "none") assert.ok(r.subagentRuns.median >= 3, `${r.task} delegated`);
    else assert.equal(r.subagentRuns.median, 0);
  }
  const table = formatTable(rows);
  assert.match(table, /\| three-modules \| none \| 1 \| 1 \| \d+ ±0 \|/);
  assert.match(table, /three-branches: tokens none\/subagent [\d.]+x \(noise unmeasured \(n=1\)\)/);
});

Deno.test("a difference between arms counts only when it exceeds the measured spread", () => {
  assert.equal(
    verdict({ median: 100, spread: 30 }, { median: 120, spread: 10 }, 3),
    "within noise",
  );
  assert.equal(
    verdict({ median: 100, spread: 10 }, { median: 130, spread: 20 }, 3),
    "beyond noise",
  );
  assert.equal(
    verdict({ median: 1, spread: 0 }, { median: 9, spread: 0 }, 1),
    "noise unmeasured (n=1)",
  );
});
