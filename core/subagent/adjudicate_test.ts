import assert from "node:assert/strict";
import { adjudicate } from "./adjudicate.ts";
import type { SubtaskReport } from "./complete_subtask.ts";

const receipts = {
  written: ["/w/src/a.ts"],
  read: ["/w/src/b.ts"],
  commands: [
    { command: "deno test src", ok: true, exitCode: 0 },
    { command: "deno lint", ok: false, exitCode: 1 },
  ],
};

function report(criteria: SubtaskReport["acceptance_criteria"], status = "complete" as const) {
  return { status, summary: "did it", acceptance_criteria: criteria };
}

Deno.test("criteria the receipts back stay satisfied and the report stays complete", () => {
  const a = adjudicate(
    report([
      { criterion: "tests pass", kind: "verification", command: "  deno   test src " },
      { criterion: "a changed", kind: "diff", paths: ["src/a.ts"] },
      { criterion: "b read", kind: "files", paths: ["/w/src/b.ts"] },
    ]),
    receipts,
    "/w",
  );
  assert.equal(a.status, "complete");
  assert.equal(a.downgrades, 0);
  assert.equal(a.falseCompletion, false);
  assert.ok(a.criteria.every((c) => c.status === "satisfied"));
});

Deno.test("a verification never run, a failed one, an untouched path and manual are downgraded with reasons", () => {
  const a = adjudicate(
    report([
      { criterion: "typecheck", kind: "verification", command: "deno check" },
      { criterion: "lint", kind: "verification", command: "deno lint" },
      { criterion: "c changed", kind: "diff", paths: ["src/a.ts", "src/c.ts"] },
      { criterion: "looked at it", kind: "manual" },
      { criterion: "no evidence", kind: "files" },
    ]),
    receipts,
    "/w",
  );
  assert.equal(a.claimed, "complete");
  assert.equal(a.status, "partial");
  assert.equal(a.falseCompletion, true);
  assert.equal(a.downgrades, 5);
  assert.deepEqual(a.criteria.map((c) => c.downgraded), [
    "the host recorded no run of `deno check`",
    "`deno lint` failed (exit 1)",
    "the host saw no write or read of src/c.ts",
    "manual criteria never prove themselves",
    "no path cited",
  ]);
});

Deno.test("the host never upgrades: a partial report stays partial, an unmet item is not a downgrade", () => {
  const a = adjudicate(
    report([
      { criterion: "tests pass", kind: "verification", command: "deno test src" },
      { criterion: "docs", kind: "manual", met: false },
    ], "partial" as never),
    receipts,
    "/w",
  );
  assert.equal(a.status, "partial");
  assert.equal(a.downgrades, 0);
  assert.equal(a.falseCompletion, false);
  const blocked = adjudicate({ ...report([]), status: "blocked" }, receipts, "/w");
  assert.equal(blocked.status, "blocked");
});

Deno.test("a complete report with an item the child left unmet cannot stay complete", () => {
  const a = adjudicate(
    report([{ criterion: "docs", kind: "files", paths: ["src/a.ts"], met: false }]),
    receipts,
    "/w",
  );
  assert.equal(a.status, "partial");
  assert.equal(a.downgrades, 0);
  assert.equal(a.falseCompletion, true);
});
