/**
 * Plan mode through the real host against the fake LLM server: the turn block, byte-stable
 * requests across switching it on and off, and an approved plan that the agent carries out
 * in the same turn.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openHost } from "../../cli/host.ts";
import type { AgentEvent } from "../agent/events.ts";
import { startFakeLlm } from "../../tests/fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../../tests/fake_llm/mod.ts";
import { makeHome, makeRepo } from "../../tests/e2e/support.ts";
import { PLAN_TURN_BLOCK, PLAN_WINDOW_MS, PlanMode } from "./mod.ts";

interface WireMessage {
  role: string;
  content: string | null;
}

function wire(req: RecordedRequest): { messages: WireMessage[]; rest: Record<string, unknown> } {
  const { messages, max_tokens: _max, ...rest } = req.body as {
    messages: WireMessage[];
    max_tokens?: number;
  };
  return { messages, rest };
}

function lastMessage(req: RecordedRequest): WireMessage {
  return wire(req).messages.at(-1)!;
}

async function openPlanHost(script: (req: RecordedRequest) => FakeStep, mode = "ask") {
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({ "a.txt": "one\n" });
  const home = await makeHome(fake.url, `\n[permissions]\nmode = "${mode}"\n`);
  const host = await openHost({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
  });
  const agent = await host.createAgent({ approvals: "stream" });
  return {
    fake,
    repo,
    host,
    agent,
    async turn(
      text: string,
      answer: (e: Extract<AgentEvent, { type: "approval_request" }>) => string = () => "deny",
    ) {
      const events: AgentEvent[] = [];
      for await (const e of agent.run({ text }, { signal: AbortSignal.timeout(30_000) })) {
        events.push(e);
        if (e.type === "approval_request") e.respond?.(answer(e) as "once" | "deny");
      }
      return events;
    },
    async close() {
      await agent.close();
      await host.close();
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

Deno.test("the plan mode state: toggle, turn block only while on, window closes with the turn or the clock", () => {
  let now = 1_000;
  const plan = new PlanMode({ now: () => now });
  const changes: string[] = [];
  plan.subscribe((c) => changes.push(c.type === "exited" ? `exited:${c.reason}` : c.type));
  assert.equal(plan.turnBlock(), undefined);
  assert.equal(plan.toggle(), true);
  assert.equal(plan.enter(), false);
  assert.equal(plan.turnBlock(), PLAN_TURN_BLOCK);
  assert.equal(plan.takeApproval("p"), false, "nothing was approved");
  plan.grantApproval("p");
  assert.equal(plan.takeApproval("other"), false, "only the approved text");
  assert.equal(plan.takeApproval("p"), true);
  assert.equal(plan.active, false);
  assert.equal(plan.windowOpen, true);
  now += PLAN_WINDOW_MS + 1;
  assert.equal(plan.windowOpen, false, "the window is short");
  plan.enter();
  plan.grantApproval("q");
  plan.takeApproval("q");
  assert.equal(plan.windowOpen, true);
  plan.turnBlock();
  assert.equal(plan.windowOpen, false, "the next user turn closes it");
  assert.equal(plan.toggle(), true);
  assert.equal(plan.toggle(), false);
  assert.deepEqual(changes, [
    "entered",
    "exited:approved",
    "entered",
    "exited:approved",
    "entered",
    "exited:user",
  ]);
});

Deno.test("switching plan mode on and off never changes a byte of the earlier requests", async () => {
  const h = await openPlanHost(() => ({ text: "ok" }));
  try {
    await h.turn("first question");
    h.host.planMode.enter();
    await h.turn("second question");
    h.host.planMode.exit();
    await h.turn("third question");
    const requests = h.fake.requests;
    assert.equal(requests.length, 3);
    const bodies = requests.map(wire);
    for (let i = 1; i < requests.length; i++) {
      // System prompt, tools and settings: the same bytes.
      assert.equal(JSON.stringify(bodies[i].rest), JSON.stringify(bodies[0].rest), `request ${i}`);
      // The earlier messages are a byte prefix of the later ones.
      const before = JSON.stringify(bodies[i - 1].messages).slice(0, -1);
      const after = JSON.stringify(bodies[i].messages);
      assert.ok(after.startsWith(before), `request ${i} rewrote an earlier message`);
      // The fake server cached at least everything up to the previous request's last message.
      assert.ok(requests[i].sharedPrefixBytes > 0);
    }
    const users = bodies[2].messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
    assert.ok(!users[0].includes("<plan-mode>"));
    assert.ok(users[1].includes(PLAN_TURN_BLOCK), "the block rides the turn made in plan mode");
    assert.ok(!users[2].includes("<plan-mode>"));
    assert.ok(!JSON.stringify(bodies[0].rest).includes("plan-mode"));
    assert.ok(!JSON.stringify(bodies[0].rest).includes("exit_plan_mode"), "no extra tool schema");
    // Plan mode costs the first request nothing: the capability is listed, not offered.
    assert.equal(requests[0].bodyText.indexOf("exit_plan_mode"), -1);
  } finally {
    await h.close();
  }
});

Deno.test("a refused write, the plan approved through the overlay's request, and the write in the same turn", async () => {
  const plan = "## Plan\n\n1. Write `b.txt`.";
  const script = (req: RecordedRequest): FakeStep => {
    const last = lastMessage(req);
    const content = last.content ?? "";
    if (last.role === "user") {
      return {
        toolCalls: [{ name: "write_file", arguments: '{"path":"b.txt","content":"x\\n"}' }],
      };
    }
    if (content.startsWith("Plan mode is on")) {
      return {
        toolCalls: [{
          name: "use_capability",
          arguments: JSON.stringify({ capability: "exit_plan_mode", arguments: { plan } }),
        }],
      };
    }
    if (content.startsWith("The user approved the plan")) {
      return {
        toolCalls: [{ name: "write_file", arguments: '{"path":"b.txt","content":"x\\n"}' }],
      };
    }
    return { text: `finished: ${content.slice(0, 40)}` };
  };
  // auto: the preset would run the write unasked, and still does not approve the plan.
  const h = await openPlanHost(script, "auto");
  try {
    h.host.planMode.enter();
    const asked: string[] = [];
    const events = await h.turn("add b.txt", (e) => {
      asked.push(`${e.request.kind}:${e.request.detail}`);
      return "once";
    });
    assert.deepEqual(asked, [`plan:${plan}`]);
    assert.equal(events.filter((e) => e.type === "done").length, 1, "one turn");
    assert.equal(h.host.planMode.active, false);
    assert.equal(h.host.permissionMode, "auto");
    assert.equal(await Deno.readTextFile(join(h.repo, "b.txt")), "x\n");
    const ends = events.filter((e) => e.type === "tool_end") as Extract<
      AgentEvent,
      { type: "tool_end" }
    >[];
    assert.match(ends[0].result.content, /^Plan mode is on: write_file was not run/);
    assert.deepEqual(ends[1].result.meta?.plan, { status: "approved", plan });
    assert.equal(ends[2].result.isError, undefined);
  } finally {
    await h.close();
  }
});
