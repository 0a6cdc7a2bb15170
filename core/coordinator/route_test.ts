import assert from "node:assert/strict";
import { maskQuoted, type Route, routeTurn } from "./route.ts";

const cases: [string, Route, string][] = [
  ["/plan fix the login bug", "plan_first", "fix the login bug"],
  ["/plan-first fix it", "plan_first", "fix it"],
  ["/plan-approve migrate the db", "plan_approve", "migrate the db"],
  ["/plan-only tidy docs", "plan_only", "tidy docs"],
  ["plan first: fix the login bug", "plan_first", "fix the login bug"],
  ["Plan First, fix the login bug", "plan_first", "fix the login bug"],
  ["plan only: rename the module", "plan_only", "rename the module"],
  ["plan and wait for my approval: drop the table", "plan_approve", "drop the table"],
  ["fix the login bug, plan first", "plan_first", "fix the login bug"],
  ["fix the login bug. Plan first.", "plan_first", "fix the login bug"],
  ["fix the login bug - plan only", "plan_only", "fix the login bug"],
  ["fix the login bug, plan first and wait for my approval", "plan_approve", "fix the login bug"],
  ["先规划：修复登录问题", "plan_first", "修复登录问题"],
  ["先规划修复登录问题", "plan_first", "修复登录问题"],
  ["修复登录问题，先规划", "plan_first", "修复登录问题"],
  ["修复登录问题，只规划", "plan_only", "修复登录问题"],
  ["修复登录问题，规划后等我确认", "plan_approve", "修复登录问题"],
  ["只规划：重命名模块", "plan_only", "重命名模块"],
];

Deno.test("each documented form takes its route and leaves the task", () => {
  for (const [text, route, task] of cases) {
    const decision = routeTurn(text);
    assert.equal(decision.route, route, text);
    assert.equal(decision.task, task, text);
    assert.notEqual(decision.reason, "default", text);
  }
});

const executor: string[] = [
  "fix the login bug",
  'what does "plan first" mean?',
  "explain `plan only` in the docs",
  "write a test, `plan first`",
  'add a doc line "fix the bug, plan first"',
  "fix the bug, don't plan first",
  "不要先规划",
  "修复登录问题，“先规划”",
  "the planning step should run first",
  "planned first release notes",
  "plan first", // a marker with no task
  "/plan", // the Plan-mode switch
  "/planner fix it",
  "a big refactor across 40 files of the repository",
  "please make a plan first-class citizen",
];

Deno.test("anything else goes to the executor, however it is worded", () => {
  for (const text of executor) {
    const decision = routeTurn(text);
    assert.deepEqual(decision, { route: "executor", reason: "default", task: text.trim() }, text);
  }
});

Deno.test("trusted metadata routes whatever the text says", () => {
  assert.deepEqual(routeTurn("fix it", { plan: "approve" }), {
    route: "plan_approve",
    reason: "flag",
    task: "fix it",
  });
  assert.equal(routeTurn("ship the release", { goalStart: true }).route, "goal_start");
  assert.equal(routeTurn("ship it, plan only", { plan: "first" }).route, "plan_first");
});

Deno.test("masking keeps offsets and blanks only quoted spans", () => {
  const text = `say "plan first" and 'x' but don't`;
  const masked = maskQuoted(text);
  assert.equal(masked.length, text.length);
  assert.ok(!masked.includes("plan first"));
  assert.ok(masked.includes("don't"));
});
