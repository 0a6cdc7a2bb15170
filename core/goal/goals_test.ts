import assert from "node:assert/strict";
import type { GoalRecord } from "../store/records.ts";
import { parseTranscript } from "../store/transcript.ts";
import { GoalRefusal, Goals } from "./goals.ts";

const ids = () => {
  let n = 0;
  return () => `goal-${++n}`;
};

Deno.test("blocked is refused before three admitted rounds and accepted at the third", () => {
  const goals = new Goals({ newId: ids() });
  const g = goals.start("ship it");
  for (const round of [1, 2]) {
    goals.admitRound();
    assert.throws(
      () => goals.update({ action: "blocked", id: g.id, revision: 1, reason: "stuck" }),
      (e: unknown) => e instanceof GoalRefusal && e.message.includes(`has run ${round}`),
    );
  }
  goals.admitRound();
  assert.throws(() => goals.update({ action: "blocked", id: g.id, revision: 1 }), /needs a reason/);
  const blocked = goals.update({ action: "blocked", id: g.id, revision: 1, reason: "stuck" });
  assert.equal(blocked.status, "blocked");
  assert.equal(blocked.revision, 2);
  assert.equal(goals.armed, false);
});

Deno.test("an update names the exact id and the current revision, or is refused with the current one", () => {
  const goals = new Goals({ newId: ids() });
  goals.start("a");
  assert.throws(
    () => goals.update({ action: "edit", id: "goal-9", revision: 1, objective: "b" }),
    /no goal "goal-9"; the current goal is goal-1 at revision 1/,
  );
  goals.update({ action: "edit", id: "goal-1", revision: 1, objective: "b" });
  assert.throws(
    () => goals.update({ action: "complete", id: "goal-1", revision: 1 }),
    /revision 1 of goal goal-1 is stale; the current revision is 2/,
  );
  assert.equal(goals.update({ action: "complete", id: "goal-1", revision: 2 }).status, "complete");
});

Deno.test("a restored goal is disarmed: no round is due until the user resumes it", () => {
  const record: GoalRecord = {
    id: "goal-7",
    revision: 3,
    objective: "x",
    status: "active",
    rounds: 4,
    tokens: 100,
    requests: 5,
    since: { rounds: 2, tokens: 0 },
  };
  const goals = new Goals({ restored: record, bounds: { maxRounds: 5 } });
  assert.equal(goals.armed, false);
  assert.equal(goals.due, false);
  assert.match(goals.turnBlock()!, /<goal id="goal-7" revision="3" status="active">/);
  goals.resume();
  assert.equal(goals.due, true);
  assert.equal(goals.state!.revision, 3, "arming an active goal changes nothing the model sees");
});

Deno.test("bounds count from the last activation and pause; the model cannot lift them", () => {
  const written: (GoalRecord | null)[] = [];
  const goals = new Goals({
    newId: ids(),
    bounds: { maxRounds: 2, tokenBudget: 1000 },
    persist: (g) => written.push(g),
  });
  goals.start("x");
  goals.admitRound();
  assert.equal(goals.boundReached(), undefined);
  goals.admitRound();
  assert.match(goals.boundReached()!, /max_goal_rounds \(2 rounds\)/);
  const paused = goals.pause("bound", "bound");
  assert.equal(paused?.pausedBy, "bound");
  assert.throws(
    () => goals.update({ action: "resume", id: "goal-1", revision: paused!.revision }),
    /only the user can resume it/,
  );
  goals.resume();
  assert.equal(goals.boundReached(), undefined, "a resumed goal gets its rounds again");
  goals.observe({ promptTokens: 900, completionTokens: 100 });
  assert.match(goals.boundReached()!, /goal_token_budget \(1,000 tokens\)/);
  assert.equal(goals.state!.requests, 1);
  assert.ok(written.length >= 5, "every change is persisted");
  goals.clear();
  assert.equal(written.at(-1), null);
});

Deno.test("the turn block names id, revision, round, bounds and how to end the goal", () => {
  const goals = new Goals({ newId: ids(), bounds: { maxRounds: 10 } });
  assert.equal(goals.turnBlock(), undefined);
  goals.start("make the build green");
  goals.admitRound();
  const block = goals.turnBlock()!;
  assert.match(block, /^<goal id="goal-1" revision="1" status="active">/);
  assert.match(block, /Objective: make the build green/);
  assert.match(block, /round 1 of 10 before it pauses/);
  assert.match(block, /update_goal/);
  goals.update({ action: "pause", id: "goal-1", revision: 1 });
  assert.equal(goals.turnBlock(), undefined, "only an active goal rides the turn");
});

Deno.test("the capabilities answer bad arguments and refusals as tool errors", async () => {
  const goals = new Goals({ newId: ids() });
  const [get, create, update] = goals.capabilities();
  assert.deepEqual([get.id, create.id, update.id], ["get_goal", "create_goal", "update_goal"]);
  assert.ok([get, create, update].every((c) => c.readOnly));
  const ctx = {} as never;
  assert.match((await get.invoke({}, ctx)).content, /There is no goal/);
  assert.equal((await create.invoke({}, ctx)).code, "invalid_arguments");
  assert.match((await create.invoke({ objective: "x" }, ctx)).content, /Created goal goal-1/);
  assert.equal(goals.armed, true, "a goal the model creates on the user's request runs");
  const again = await create.invoke({ objective: "y" }, ctx);
  assert.equal(again.code, "conflict");
  const bad = await update.invoke({ action: "finish", id: "goal-1", revision: 1 }, ctx);
  assert.equal(bad.code, "invalid_arguments");
  assert.equal(JSON.parse((await get.invoke({}, ctx)).content).armed, true);
});

Deno.test("the transcript keeps the last goal record; a cleared goal is gone, a damaged one skipped", () => {
  const goal: GoalRecord = {
    id: "goal-1",
    revision: 2,
    objective: "x",
    status: "paused",
    rounds: 3,
    tokens: 9,
    requests: 3,
    pausedBy: "bound",
    reason: "bound",
    since: { rounds: 0, tokens: 0 },
  };
  const meta = { id: "s", created: "2026-12-01T00:00:00Z", workspace: "/w", model: "p/m" };
  const lines = (...records: unknown[]) =>
    [{ t: "session", v: 1, meta }, ...records].map((r) => JSON.stringify(r)).join("\n");
  assert.deepEqual(parseTranscript(lines({ t: "goal", g: goal }))!.goal, goal);
  assert.equal(
    parseTranscript(lines({ t: "goal", g: goal }, { t: "goal", g: null }))!.goal,
    undefined,
  );
  const damaged = parseTranscript(lines({ t: "goal", g: goal }, { t: "goal", g: { id: "x" } }))!;
  assert.deepEqual(damaged.goal, goal);
  assert.equal(damaged.skippedLines, 1);
  const counts = { ...goal, revision: 3, since: { rounds: -1, tokens: 0 } };
  assert.deepEqual(
    parseTranscript(lines({ t: "goal", g: goal }, { t: "goal", g: counts }))!.goal,
    goal,
  );
});
