/**
 * Goal mode end to end, through the real host against the fake LLM server: the model reaches
 * `get_goal`, `create_goal` and `update_goal` through `use_capability`, the driver admits one
 * round at a time through the agent's ordinary entry, `blocked` needs three rounds, a revision
 * must be the current one, `max_goal_rounds` pauses and resumes, a resumed transcript brings the
 * goal back disarmed, every request extends the one before it, and `reasonix run --goal` reports
 * the rounds in `--json`.
 */
import assert from "node:assert/strict";
import { openHost } from "../../cli/host.ts";
import { HostBackend } from "../../cli/ui/backend.ts";
import { UiApprovalBroker } from "../../cli/ui/broker.ts";
import { ChatController, NO_KEY } from "../../cli/ui/controller.ts";
import { statusSegments } from "../../cli/ui/status.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import { CONTINUE_TEXT, GoalDriver, GoalRunner } from "../../core/goal/mod.ts";
import type { HostedAgent } from "../../core/host/mod.ts";
import { type FakeStep, type RecordedRequest, startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

interface WireMessage {
  role: string;
  content: string | null;
}

function messages(req: RecordedRequest): WireMessage[] {
  return (req.body as { messages: WireMessage[] }).messages;
}

/** What the goal block of the request's last user turn says. */
function block(req: RecordedRequest): { id: string; revision: number; round: number } | undefined {
  const user = messages(req).findLast((m) => m.role === "user")?.content ?? "";
  const m = /<goal id="([^"]+)" revision="(\d+)"[^>]*>[\s\S]*?Progress: round (\d+)/.exec(user);
  return m ? { id: m[1], revision: Number(m[2]), round: Number(m[3]) } : undefined;
}

function lastIsTool(req: RecordedRequest): boolean {
  return messages(req).at(-1)?.role === "tool";
}

function lastTool(req: RecordedRequest): string {
  return messages(req).filter((m) => m.role === "tool").at(-1)?.content ?? "";
}

function capability(name: string, args: Record<string, unknown>): FakeStep {
  return {
    toolCalls: [{
      name: "use_capability",
      arguments: JSON.stringify({ capability: name, arguments: args }),
    }],
  };
}

async function setup(script: (req: RecordedRequest) => FakeStep, toml = "") {
  const fake = await startFakeLlm({ script: (req) => script(req) });
  const repo = await makeRepo({ "README.md": "# demo\n" });
  const home = await makeHome(fake.url, toml);
  const host = await openHost({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
  });
  return {
    fake,
    repo,
    home,
    host,
    async close() {
      await host.close();
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

async function drain(runner: GoalRunner | HostedAgent, text: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const e of runner.run({ text }, { signal: AbortSignal.timeout(30_000) })) {
    events.push(e);
  }
  return events;
}

const goalEvents = (events: AgentEvent[]) =>
  events.flatMap((e) => e.type === "goal" ? [`${e.change}:${e.goal.status}`] : []);

Deno.test("a goal that runs three rounds and then blocks; blocked before round 3 is refused", async () => {
  const refusals: string[] = [];
  const t = await setup((req) => {
    if (lastIsTool(req)) {
      refusals.push(lastTool(req));
      return { text: "Noted." };
    }
    const b = block(req)!;
    // Rounds 1 and 2 try to give up too early; round 3 may.
    return capability("update_goal", {
      action: "blocked",
      id: b.id,
      revision: b.revision,
      reason: "the staging database is unreachable",
    });
  });
  try {
    await using agent = await t.host.createAgent({});
    const goals = agent.goals!;
    goals.start("migrate the staging database");
    const events = await drain(new GoalRunner({ runner: agent, goals }), "migrate it");
    const state = goals.state!;
    assert.equal(state.status, "blocked");
    assert.equal(state.rounds, 3);
    assert.equal(state.reason, "the staging database is unreachable");
    assert.equal(goals.armed, false);
    assert.equal(refusals.length, 3);
    assert.match(refusals[0], /only after 3 rounds; this one has run 1/);
    assert.match(refusals[1], /has run 2/);
    assert.match(refusals[2], /is blocked at revision/);
    assert.deepEqual(goalEvents(events), [
      "created:active",
      "round:active",
      "round:active",
      "round:active",
      "blocked:blocked",
    ]);
    // One run, one result, summing the rounds: six requests, two per round.
    const dones = events.filter((e) => e.type === "done");
    assert.equal(dones.length, 1);
    const done = dones[0] as Extract<AgentEvent, { type: "done" }>;
    assert.equal(done.status, "error");
    assert.equal(done.error?.code, "goal_blocked");
    assert.equal(state.requests, 6);
    assert.equal(t.fake.requests.length, 6);
    assert.equal(state.tokens, done.usage.promptTokens + done.usage.completionTokens);
    // Round 1 carries the user's words; later rounds the fixed text, each with the goal block.
    const users = messages(t.fake.requests[5]).filter((m) => m.role === "user");
    assert.equal(users.length, 3);
    assert.match(users[0].content!, /migrate it/);
    for (const u of users.slice(1)) assert.ok(u.content!.includes(CONTINUE_TEXT));
    for (const [i, u] of users.entries()) assert.match(u.content!, new RegExp(`round ${i + 1}`));
  } finally {
    await t.close();
  }
});

Deno.test("a goal that hits max_goal_rounds pauses, says how to resume, and resumes", async () => {
  let finish = false;
  const t = await setup((req) => {
    if (lastIsTool(req)) return { text: "Done with it." };
    const b = block(req);
    if (finish && b) {
      return capability("update_goal", { action: "complete", id: b.id, revision: b.revision });
    }
    return { text: `Worked on round ${b?.round}.` };
  }, "\n[agent]\nmax_goal_rounds = 2\n");
  try {
    await using agent = await t.host.createAgent({});
    const goals = agent.goals!;
    goals.start("write the changelog");
    const runner = new GoalRunner({ runner: agent, goals });
    const first = await drain(runner, "write the changelog");
    let state = goals.state!;
    assert.equal(state.status, "paused");
    assert.equal(state.pausedBy, "bound");
    assert.equal(state.rounds, 2, "the final answer of a round did not end the goal");
    assert.match(state.reason!, /max_goal_rounds \(2 rounds\)/);
    assert.match(state.reason!, /\/goal resume/);
    assert.match(state.reason!, /reasonix run --continue --goal-resume/);
    const done = first.at(-1) as Extract<AgentEvent, { type: "done" }>;
    assert.equal(done.status, "budget_exceeded");
    assert.match(done.detail!, /max_goal_rounds/);
    assert.ok(goalEvents(first).includes("bound:paused"));

    // The model cannot lift a bound itself.
    const refused = await goals.capabilities().find((c) => c.id === "update_goal")!.invoke(
      { action: "resume", id: state.id, revision: state.revision },
      {} as never,
    );
    assert.equal(refused.isError, true);
    assert.match(refused.content, /only the user can resume/);

    // The user resumes: the bound counts afresh, and this time the model completes it.
    finish = true;
    goals.resume();
    assert.equal(goals.due, true);
    const second = await drain(runner, CONTINUE_TEXT);
    state = goals.state!;
    assert.equal(state.status, "complete");
    assert.equal(state.rounds, 3);
    assert.equal((second.at(-1) as Extract<AgentEvent, { type: "done" }>).status, "completed");
  } finally {
    await t.close();
  }
});

Deno.test("a stale revision is refused with the current one; the exact one is accepted", async () => {
  let step = 0;
  const results: string[] = [];
  const t = await setup((req) => {
    if (lastIsTool(req)) results.push(lastTool(req));
    const b = block(req)!;
    step++;
    if (step === 1) {
      return capability("update_goal", {
        action: "edit",
        id: b.id,
        revision: b.revision,
        objective: "ship v2",
      });
    }
    // The block of this turn still says revision 1: stale after the edit.
    if (step === 2) {
      return capability("update_goal", { action: "complete", id: b.id, revision: b.revision });
    }
    if (step === 3) {
      return capability("update_goal", { action: "complete", id: "goal-wrong", revision: 2 });
    }
    if (step === 4) {
      return capability("update_goal", { action: "complete", id: b.id, revision: 2 });
    }
    return { text: "Shipped." };
  });
  try {
    await using agent = await t.host.createAgent({});
    const goals = agent.goals!;
    goals.start("ship v1");
    await drain(new GoalRunner({ runner: agent, goals }), "ship it");
    assert.equal(goals.state!.status, "complete");
    assert.equal(goals.state!.objective, "ship v2");
    assert.equal(goals.state!.revision, 3);
    assert.match(results[0], /is active at revision 2/);
    assert.match(results[1], /revision 1 of goal goal-\w+ is stale; the current revision is 2/);
    assert.match(results[2], /no goal "goal-wrong"; the current goal is goal-\w+ at revision 2/);
    assert.match(results[3], /is complete at revision 3/);
  } finally {
    await t.close();
  }
});

Deno.test("a resumed transcript restores the goal disarmed; only /goal resume re-arms it", async () => {
  const t = await setup((req) => lastIsTool(req) ? { text: "ok" } : { text: "An answer." });
  try {
    let id: string;
    {
      await using agent = await t.host.createAgent({});
      const goals = agent.goals!;
      goals.start("keep the docs in sync");
      id = agent.session.id;
      const runner = new GoalRunner({ runner: agent, goals });
      // The session ends with the goal active (a crash, a closed terminal): no round ran.
      goals.disarm();
      await drain(runner, "hello");
      assert.equal(goals.state!.status, "active");
    }
    const before = t.fake.requests.length;
    await using resumed = await t.host.createAgent({ transcript: { resume: id } });
    const goals = resumed.goals!;
    assert.equal(goals.state?.objective, "keep the docs in sync");
    assert.equal(goals.state?.status, "active");
    assert.equal(goals.armed, false, "activation is never restored");
    assert.equal(goals.due, false);
    // A user turn runs once: the disarmed goal admits no rounds, though its block still rides.
    const events = await drain(new GoalRunner({ runner: resumed, goals }), "what now?");
    assert.equal(t.fake.requests.length, before + 1);
    assert.equal(events.filter((e) => e.type === "done").length, 1);
    assert.match(messages(t.fake.requests.at(-1)!).at(-1)!.content!, /<goal id="goal-/);
    goals.resume();
    assert.equal(goals.due, true);
  } finally {
    await t.close();
  }
});

Deno.test("creating, updating and pausing a goal never changes a byte of an earlier request", async () => {
  let n = 0;
  const t = await setup((req) => {
    n++;
    if (lastIsTool(req)) return { text: `Answer ${n}.` };
    const b = block(req);
    if (messages(req).at(-1)!.content!.includes("thanks")) return { text: "You are welcome." };
    if (!b) return capability("create_goal", { objective: "tidy the repository" });
    if (b.round === 1) {
      return capability("update_goal", {
        action: "edit",
        id: b.id,
        revision: b.revision,
        objective: "tidy the repository and its docs",
      });
    }
    return capability("update_goal", { action: "pause", id: b.id, revision: b.revision });
  });
  try {
    await using agent = await t.host.createAgent({});
    const goals = agent.goals!;
    const events = await drain(new GoalRunner({ runner: agent, goals }), "please tidy up");
    assert.deepEqual(goalEvents(events), [
      "created:active",
      "round:active",
      "edited:active",
      "round:active",
      "paused:paused",
    ]);
    // Then the user's own turn, with the goal paused: no block.
    await drain(agent, "thanks");
    const bodies = t.fake.requests.map((r) => r.bodyText);
    assert.ok(bodies.length >= 7);
    for (let i = 1; i < bodies.length; i++) {
      const prev = bodies[i - 1];
      assert.ok(prev.endsWith("]}"));
      assert.ok(bodies[i].startsWith(prev.slice(0, -2)), `request ${i} rewrote request ${i - 1}`);
    }
    // The goal rides the user turns only: never the system prompt.
    const system = messages(t.fake.requests[0]).find((m) => m.role === "system")!.content!;
    assert.doesNotMatch(system, /goal-|<goal/);
    assert.doesNotMatch(messages(t.fake.requests.at(-1)!).at(-1)!.content!, /<goal /);
    // The goal tools sit behind use_capability: with them the first request has exactly the
    // bytes it has without them.
    await using plain = await t.host.createAgent({ goals: false });
    assert.equal(plain.goals, undefined);
    const before = t.fake.requests.length;
    await drain(plain, "please tidy up");
    assert.equal(t.fake.requests[before].bodyText, bodies[0]);
  } finally {
    await t.close();
  }
});

Deno.test("reasonix run --goal runs rounds until complete and --json reports them", async () => {
  const fake = await startFakeLlm({
    script: (req) => {
      if (lastIsTool(req)) return { text: "All done." };
      const b = block(req)!;
      if (b.round < 2) return { text: `Round ${b.round} done.` };
      return capability("update_goal", { action: "complete", id: b.id, revision: b.revision });
    },
  });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix(["run", "--json", "--goal", "add a README"], {
      cwd: repo,
      home,
    });
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout.trim());
    assert.equal(summary.status, "completed");
    assert.equal(summary.goal.status, "complete");
    assert.equal(summary.goal.rounds, 2);
    assert.equal(summary.goal.requests, 3);
    assert.equal(summary.goal.objective, "add a README");
    // The first round is the goal's explicit start, which the coordinator routes on.
    assert.equal(summary.route?.route, "goal_start");
    assert.equal(summary.turns, 3);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("reasonix run --goal --output-format stream-json writes a line per goal change", async () => {
  const fake = await startFakeLlm({
    script: (req) => {
      if (lastIsTool(req)) return { text: "Done." };
      const b = block(req)!;
      return capability("update_goal", { action: "complete", id: b.id, revision: b.revision });
    },
  });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix(
      ["run", "--output-format", "stream-json", "--goal", "tag the release"],
      { cwd: repo, home },
    );
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const changes = lines.filter((l) => l.subtype === "reasonix_goal").map((l) => l.change);
    assert.deepEqual(changes, ["created", "round", "complete"]);
    const results = lines.filter((l) => l.type === "result");
    assert.equal(results.length, 1);
    assert.equal(results[0].subtype, "success");
    assert.equal(results[0].reasonix.goal.status, "complete");
    assert.equal(results[0].reasonix.goal.rounds, 1);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("reasonix run --goal stops at max_goal_rounds with exit 1; --continue --goal-resume goes on", async () => {
  let finish = false;
  const fake = await startFakeLlm({
    script: (req) => {
      if (lastIsTool(req)) return { text: "Finished." };
      const b = block(req)!;
      if (!finish) return { text: `Round ${b.round}.` };
      return capability("update_goal", { action: "complete", id: b.id, revision: b.revision });
    },
  });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url, "\n[agent]\nmax_goal_rounds = 1\n");
  try {
    const first = await runReasonix(["run", "--json", "--goal", "fix the tests"], {
      cwd: repo,
      home,
    });
    assert.equal(first.code, 1, first.stderr);
    const s1 = JSON.parse(first.stdout.trim());
    assert.equal(s1.goal.status, "paused");
    assert.equal(s1.goal.rounds, 1);
    assert.match(s1.detail, /--goal-resume/);
    finish = true;
    const second = await runReasonix(["run", "--json", "--continue", "--goal-resume"], {
      cwd: repo,
      home,
    });
    assert.equal(second.code, 0, second.stderr);
    const s2 = JSON.parse(second.stdout.trim());
    assert.equal(s2.session_id, s1.session_id);
    assert.equal(s2.goal.status, "complete");
    assert.equal(s2.goal.rounds, 2);
    assert.equal(s2.goal.id, s1.goal.id);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a config file with the goal bounds in [agent] loads them", async () => {
  const t = await setup(
    () => ({ text: "x" }),
    "\n[agent]\nmax_goal_rounds = 4\ngoal_token_budget = 5000\n",
  );
  try {
    await using agent = await t.host.createAgent({});
    assert.deepEqual(agent.goals!.bounds, { maxRounds: 4, tokenBudget: 5000 });
    const subagent = await t.host.createAgent({ parent: { sessionId: agent.session.id } });
    assert.equal(subagent.goals, undefined, "a subagent never inherits the goal");
    await subagent.close();
  } finally {
    await t.close();
  }
});

Deno.test("/goal in the interactive UI: rounds run while idle, the status line shows it, Ctrl-C pauses", async () => {
  let finish = false;
  const t = await setup((req) => {
    if (lastIsTool(req)) return { text: "Complete." };
    const b = block(req);
    if (finish && b) {
      return capability("update_goal", { action: "complete", id: b.id, revision: b.revision });
    }
    return { text: `Round ${b?.round ?? "-"} worked.`, delayMs: b?.round === 5 ? 400 : 0 };
  }, "\n[agent]\nmax_goal_rounds = 2\n");
  const broker = new UiApprovalBroker();
  const backend = await HostBackend.create({ host: t.host, broker });
  const controller = new ChatController({ backend, broker, exit: () => {} });
  const notices = () =>
    controller.getSnapshot().items.flatMap((i) => i.kind === "notice" ? [i.text] : []);
  try {
    await controller.submit("/goal write the release notes");
    await controller.idle();
    const goals = backend.goals()!;
    assert.equal(goals.state!.rounds, 2);
    assert.equal(goals.state!.status, "paused");
    assert.ok(notices().some((n) => /max_goal_rounds \(2 rounds\).*\/goal resume/.test(n)));
    const segment = statusSegments(controller.getSnapshot().status).find((x) => x.key === "goal");
    assert.match(segment!.text, /^goal paused · round 2 · [\d.]+k? tok · 2 req$/);
    assert.deepEqual(controller.getSnapshot().status.goal, {
      status: "paused",
      rounds: 2,
      tokens: goals.state!.tokens,
      requests: 2,
      armed: false,
    });
    // The first round carried the objective as the user's words, the second the fixed text.
    const users = messages(t.fake.requests.at(-1)!).filter((m) => m.role === "user");
    assert.match(users[0].content!, /write the release notes/);
    assert.ok(users[1].content!.includes(CONTINUE_TEXT));

    // Resumed, the bound allows two more rounds; Ctrl-C in round 4 pauses it for the user.
    await controller.submit("/goal resume");
    await controller.idle();
    assert.equal(goals.state!.rounds, 4);
    assert.equal(goals.state!.pausedBy, "bound");
    const resumed = controller.submit("/goal resume");
    while (!controller.getSnapshot().busy || t.fake.requests.length < 5) {
      await new Promise((r) => setTimeout(r, 10));
    }
    controller.handleInput("c", { ...NO_KEY, ctrl: true });
    await resumed;
    await controller.idle();
    assert.equal(goals.state!.status, "paused");
    assert.equal(goals.state!.pausedBy, "user");
    assert.equal(goals.state!.rounds, 5, "no round ran after Ctrl-C");

    finish = true;
    await controller.submit("/goal resume");
    await controller.idle();
    assert.equal(goals.state!.status, "complete");
    await controller.submit("/goal status");
    const panel = controller.getSnapshot().items.findLast((i) => i.kind === "panel");
    assert.ok(panel && panel.kind === "panel" && /Goal goal-/.test(panel.title));
    await controller.submit("/goal clear");
    assert.equal(goals.state, undefined);
    assert.equal(controller.getSnapshot().status.goal, undefined);
  } finally {
    controller.dispose();
    await backend.dispose();
    await t.close();
  }
});

Deno.test("the round that reaches goal_token_budget pauses the goal as it ends", async () => {
  const t = await setup(() => ({ text: "Progress." }), "\n[agent]\ngoal_token_budget = 10\n");
  try {
    await using agent = await t.host.createAgent({});
    const goals = agent.goals!;
    goals.start("index the docs");
    const driver = new GoalDriver({ runner: agent, goals });
    const events: AgentEvent[] = [];
    for await (const e of driver.round({ signal: AbortSignal.timeout(30_000) })) events.push(e);
    assert.equal(t.fake.requests.length, 1);
    assert.equal(goals.state!.status, "paused");
    assert.equal(goals.state!.pausedBy, "bound");
    assert.match(goals.state!.reason!, /goal_token_budget \(10 tokens\)/);
    // The pause comes after the round's own end, in the same stream.
    const kinds = events.map((e) => e.type === "goal" ? e.change : e.type);
    assert.ok(kinds.indexOf("bound") > kinds.indexOf("done"), kinds.join(","));
    // Nothing more is due: the next idle moment admits no round.
    assert.equal(goals.due, false);
    for await (const _ of driver.round({ signal: AbortSignal.timeout(30_000) })) {
      assert.fail("no round after a bound");
    }
  } finally {
    await t.close();
  }
});

Deno.test("/model keeps an armed goal armed; /resume of the session brings it back disarmed", async () => {
  const t = await setup(() => ({ text: "ok" }));
  const broker = new UiApprovalBroker();
  const backend = await HostBackend.create({ host: t.host, broker });
  try {
    const goal = backend.goals()!.start("port the parser");
    await backend.switchModel("fake/fake-model");
    assert.equal(backend.goals()!.state!.id, goal.id);
    assert.equal(backend.goals()!.due, true, "a model switch is not a cold start");
    const id = backend.info().sessionId;
    await backend.newConversation();
    assert.equal(backend.goals()!.state, undefined, "a new conversation has no goal");
    await backend.resume(id);
    assert.equal(backend.goals()!.state!.id, goal.id);
    assert.equal(backend.goals()!.due, false, "resuming a session disarms its goal");
  } finally {
    await backend.dispose();
    await t.close();
  }
});

Deno.test("cancelling a goal run pauses the goal for the user", async () => {
  const t = await setup(() => ({ text: "Slow progress.", delayMs: 300 }));
  try {
    await using agent = await t.host.createAgent({});
    const goals = agent.goals!;
    goals.start("rewrite the parser");
    const abort = new AbortController();
    const events: AgentEvent[] = [];
    const run = (async () => {
      const runner = new GoalRunner({ runner: agent, goals });
      for await (const e of runner.run({ text: "go" }, { signal: abort.signal })) events.push(e);
    })();
    while (t.fake.requests.length < 1) await new Promise((r) => setTimeout(r, 10));
    abort.abort(new DOMException("Cancelled by the user", "AbortError"));
    await run;
    assert.equal(goals.state!.status, "paused");
    assert.equal(goals.state!.pausedBy, "user");
    assert.equal(goals.due, false);
    assert.equal((events.at(-1) as Extract<AgentEvent, { type: "done" }>).status, "cancelled");
  } finally {
    await t.close();
  }
});

Deno.test("Ctrl-C in a user turn while a goal is armed pauses the goal: no round follows", async () => {
  // The bound keeps a broken pause from looping: one round at most would follow.
  const t = await setup(
    () => ({ text: "A slow answer.", delayMs: 300 }),
    "\n[agent]\nmax_goal_rounds = 1\n",
  );
  const broker = new UiApprovalBroker();
  const backend = await HostBackend.create({ host: t.host, broker });
  const controller = new ChatController({ backend, broker, exit: () => {} });
  try {
    const goals = backend.goals()!;
    goals.start("keep the changelog current");
    const turn = controller.submit("a question first");
    while (t.fake.requests.length < 1) await new Promise((r) => setTimeout(r, 10));
    controller.handleInput("c", { ...NO_KEY, ctrl: true });
    await turn;
    await controller.idle();
    assert.equal(t.fake.requests.length, 1, "no goal round ran after Ctrl-C");
    assert.equal(goals.state!.status, "paused");
    assert.equal(goals.state!.pausedBy, "user");
  } finally {
    controller.dispose();
    await backend.dispose();
    await t.close();
  }
});
