/**
 * The Coordinator end to end through the real host: an Anthropic-compatible planner and an
 * OpenAI-compatible executor, each on its own fake LLM server, so every request is seen on the
 * wire of its own session. Routes, the handoff, fail-closed planners, rollback and approval.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openHost } from "../../cli/host.ts";
import type { AgentEvent, UserInput } from "../../core/agent/events.ts";
import { Coordinator } from "../../core/coordinator/mod.ts";
import { readTranscript } from "../../core/store/transcript.ts";
import {
  type FakeScript,
  fakeToolCall,
  type RecordedRequest,
  startFakeLlm,
} from "../fake_llm/mod.ts";
import { makeRepo, runReasonix } from "./support.ts";
import { fixtureServerToml } from "../mcp/servers.ts";

const PLAN = {
  title: "Fix login",
  summary: "Trim the password before hashing it.",
  steps: [{ title: "Edit src/auth.ts", detail: "call trim() in hashPassword" }],
  verified: [{ path: "src/auth.ts", note: "hashPassword hashes the raw input" }],
  candidates: [{ path: "src/session.ts" }],
  verification: ["deno test"],
};

interface Setup {
  repo: string;
  home: string;
  planner: { requests: RecordedRequest[] };
  executor: { requests: RecordedRequest[] };
  open(opts?: { approvals?: "stream"; resume?: string }): Promise<{
    coordinator: Coordinator;
    close(): Promise<void>;
  }>;
  close(): Promise<void>;
}

async function setup(
  scripts: { planner: FakeScript; executor: FakeScript },
  opts: { plannerModel?: string | null; plannerTurns?: number; extraToml?: string } = {},
): Promise<Setup> {
  const planner = await startFakeLlm({ script: scripts.planner, format: "anthropic" });
  const executor = await startFakeLlm({ script: scripts.executor, format: "openai" });
  const repo = await makeRepo({ "src/auth.ts": "export function hashPassword(p) { return p; }\n" });
  const home = await Deno.makeTempDir({ prefix: "reasonix-coord-home-" });
  await Deno.writeTextFile(
    join(home, "config.toml"),
    `default_model = "exec/exec-model"

[agent]
${opts.plannerModel === null ? "" : `planner_model = "${opts.plannerModel ?? "plan/plan-model"}"`}

[[providers]]
name = "exec"
kind = "openai"
base_url = "${executor.url}"
models = ["exec-model"]
api_key_env = "EXEC_KEY"
context_window = 128000

[[providers]]
name = "plan"
kind = "anthropic"
base_url = "${planner.url}"
models = ["plan-model"]
api_key_env = "PLAN_KEY"
context_window = 128000
${opts.extraToml ?? ""}`,
  );
  const env = {
    REASONIX_HOME: home,
    EXEC_KEY: "sk-exec",
    PLAN_KEY: "sk-plan",
    PATH: Deno.env.get("PATH") ?? "",
  };
  return {
    repo,
    home,
    planner,
    executor,
    async open(o = {}) {
      const host = await openHost({ cwd: repo, env, mcpReadyWaitMs: 15_000 });
      try {
        const agent = await host.createAgent({
          approvals: o.approvals,
          transcript: o.resume ? { resume: o.resume } : undefined,
        });
        const coordinator = await Coordinator.create({
          host,
          executor: agent,
          plannerModel: host.config.agent.planner_model,
          plannerTurns: opts.plannerTurns,
        });
        return {
          coordinator,
          async close() {
            await coordinator.close();
            await agent.close();
            await host.close();
          },
        };
      } catch (error) {
        await host.close();
        throw error;
      }
    },
    async close() {
      await planner.close();
      await executor.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

async function drain(
  runner: Coordinator,
  input: UserInput,
  answer?: (event: Extract<AgentEvent, { type: "approval_request" }>) => void,
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of runner.run(input, { signal: AbortSignal.timeout(30_000) })) {
    events.push(event);
    if (event.type === "approval_request") answer?.(event);
  }
  return events;
}

function doneOf(events: AgentEvent[]): Extract<AgentEvent, { type: "done" }> {
  const done = events.filter((e) => e.type === "done");
  assert.equal(done.length, 1, "one done event per run");
  return done[0] as Extract<AgentEvent, { type: "done" }>;
}

/** A request body without Anthropic's moving cache breakpoints. */
function stable(req: RecordedRequest): Record<string, unknown> {
  return JSON.parse(req.bodyText, (key, value) => key === "cache_control" ? undefined : value);
}

/** `next` keeps `prev`'s system prompt, tools and every earlier message. */
function assertExtends(prev: RecordedRequest, next: RecordedRequest): void {
  const [a, b] = [stable(prev), stable(next)];
  assert.deepEqual(b.system, a.system);
  assert.deepEqual(b.tools, a.tools);
  const [ma, mb] = [a.messages as unknown[], b.messages as unknown[]];
  assert.ok(mb.length > ma.length);
  assert.deepEqual(mb.slice(0, ma.length), ma, "earlier messages changed");
}

/** The user text of an OpenAI-format request's last user message. */
function lastUser(req: RecordedRequest): string {
  const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
  return messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
}

Deno.test("without a planner route the executor alone runs and the planner is never built", async () => {
  const s = await setup({ planner: [], executor: [{ text: "done" }] });
  const { coordinator, close } = await s.open();
  try {
    const events = await drain(coordinator, { text: 'what does "plan first" mean?' });
    assert.deepEqual(events.find((e) => e.type === "route"), {
      type: "route",
      route: "executor",
      reason: "default",
    });
    assert.equal(doneOf(events).status, "completed");
    assert.equal(s.planner.requests.length, 0);
    assert.equal(s.executor.requests.length, 1);
    assert.equal(coordinator.planner, undefined);
  } finally {
    await close();
    await s.close();
  }
});

Deno.test("plan first: an Anthropic planner researches, the OpenAI executor gets only the plan", async () => {
  const s = await setup({
    planner: [
      { toolCalls: [fakeToolCall("read_file", { path: "src/auth.ts" })] },
      { toolCalls: [fakeToolCall("submit_plan", PLAN)] },
      // The second planner turn of the session.
      { toolCalls: [fakeToolCall("submit_plan", { ...PLAN, title: "Second" })] },
    ],
    executor: [{ text: "fixed" }, { text: "fixed again" }, { text: "you are welcome" }],
  });
  const { coordinator, close } = await s.open();
  try {
    const events = await drain(coordinator, { text: "fix the login bug, plan first" });
    const done = doneOf(events);
    assert.equal(done.status, "completed");
    assert.equal(done.text, "fixed");
    // Planner events are tagged; the executor's are not.
    const planned = events.filter((e) => e.agent === "planner");
    assert.ok(planned.some((e) => e.type === "tool_start" && e.call.name === "read_file"));
    assert.ok(events.some((e) => e.type === "plan" && e.status === "approved"));

    // The planner spoke Anthropic with its own prompt and the planner-turn block.
    assert.equal(s.planner.requests.length, 2);
    const first = s.planner.requests[0].body as {
      system: { text: string }[] | string;
      tools: { name: string }[];
      messages: { content: unknown }[];
    };
    assert.match(JSON.stringify(first.system), /You are the Reasonix planner/);
    assert.deepEqual(
      first.tools.map((t) => t.name),
      ["glob", "grep", "history", "ls", "memory", "read_file", "submit_plan", "use_capability"],
    );
    assert.match(JSON.stringify(first.messages[0]), /<planner-turn route=\\"plan_first\\"\/>/);
    assert.equal(s.planner.requests[1].sharedPrefixBytes > 0, true);
    // Cache-first budget: the planner's first request stays within 14 KiB too.
    assert.ok(s.planner.requests[0].bodyText.length <= 14 * 1024, "planner first request size");

    // The executor's first request: the task and the plan, none of the research.
    assert.equal(s.executor.requests.length, 1);
    const exec = s.executor.requests[0];
    const user = lastUser(exec);
    assert.match(user, /fix the login bug/);
    assert.doesNotMatch(user, /plan first/);
    assert.match(user, /<plan id="plan-[0-9a-f]{10}" route="plan_first">/);
    assert.match(user, /Candidate touch points/);
    assert.doesNotMatch(exec.bodyText, /read_file\\",\\"arguments|hashPassword\(p\) \{ return p/);
    assert.doesNotMatch(exec.bodyText, /submit_plan|You are the Reasonix planner/);
    assert.equal(done.sessions?.planner?.promptTokens! > 0, true);
    assert.equal(done.sessions?.executor?.promptTokens! > 0, true);
    assert.equal(
      done.usage.promptTokens,
      done.sessions!.planner!.promptTokens + done.sessions!.executor!.promptTokens,
    );

    // A second planner turn extends the planner session's last request, and the executor's
    // second request extends its first: same prompt and tools, earlier messages unchanged.
    await drain(coordinator, { text: "/plan tidy the module" });
    assertExtends(s.planner.requests[1], s.planner.requests[2]);
    assertExtends(s.executor.requests[0], s.executor.requests[1]);
    // Back to the default route: the executor's session still only grows.
    await drain(coordinator, { text: "thanks" });
    assertExtends(s.executor.requests[1], s.executor.requests[2]);
    assert.equal(s.planner.requests.length, 3);
  } finally {
    await close();
    await s.close();
  }
});

Deno.test("plan only saves the plan, ends the turn and never calls the executor", async () => {
  const s = await setup({
    planner: [{ toolCalls: [fakeToolCall("submit_plan", PLAN)] }],
    executor: [],
  });
  const { coordinator, close } = await s.open();
  try {
    const events = await drain(coordinator, { text: "只规划：修复登录问题" });
    const done = doneOf(events);
    assert.equal(done.status, "completed");
    assert.match(done.text, /## Fix login/);
    assert.equal(s.executor.requests.length, 0);
    const loaded = await readTranscript(coordinator.executor.sessionPath!);
    assert.equal(loaded?.plan?.status, "saved");
    const text = await Deno.readTextFile(coordinator.executor.sessionPath!);
    assert.match(text, /"t":"route","route":"plan_only","reason":"leading_marker"/);
    // The route record carries no user text.
    assert.doesNotMatch(text.split("\n").find((l) => l.includes('"t":"route"'))!, /修复/);
  } finally {
    await close();
    await s.close();
  }
});

Deno.test("plan and approve: headless waits, --approve-plan carries it out later", async () => {
  const s = await setup({
    planner: [{ toolCalls: [fakeToolCall("submit_plan", PLAN)] }],
    executor: [{ text: "carried out" }],
  });
  let session: string;
  {
    const { coordinator, close } = await s.open();
    try {
      const done = doneOf(await drain(coordinator, { text: "fix it", route: { plan: "approve" } }));
      assert.equal(done.status, "awaiting_approval");
      assert.match(done.detail!, /reasonix run --continue --approve-plan/);
      assert.equal(s.executor.requests.length, 0);
      session = coordinator.executor.session.id;
    } finally {
      await close();
    }
  }
  const { coordinator, close } = await s.open({ resume: session });
  try {
    const done = doneOf(await drain(coordinator, { text: "", route: { approvePlan: true } }));
    assert.equal(done.status, "completed");
    assert.equal(done.text, "carried out");
    assert.match(lastUser(s.executor.requests[0]), /fix it[\s\S]*<plan id=/);
    // Carried out once: a second approval finds nothing waiting.
    const again = doneOf(await drain(coordinator, { text: "", route: { approvePlan: true } }));
    assert.equal(again.error?.code, "no_pending_plan");
  } finally {
    await close();
    await s.close();
  }
});

Deno.test("plan and approve interactively: a person approves or rejects in the stream", async () => {
  const s = await setup({
    planner: [
      { toolCalls: [fakeToolCall("submit_plan", PLAN)] },
      { toolCalls: [fakeToolCall("submit_plan", PLAN)] },
    ],
    executor: [{ text: "done" }],
  });
  const { coordinator, close } = await s.open({ approvals: "stream" });
  try {
    const rejected = await drain(coordinator, { text: "/plan-approve fix it" }, (e) => {
      assert.equal(e.request.kind, "plan");
      assert.match(e.request.detail!, /## Fix login/);
      e.respond!("deny");
    });
    assert.equal(doneOf(rejected).status, "completed");
    assert.equal(s.executor.requests.length, 0);
    assert.ok(rejected.some((e) => e.type === "plan" && e.status === "rejected"));
    const approved = await drain(
      coordinator,
      { text: "/plan-approve fix it" },
      (e) => e.respond!("once"),
    );
    assert.equal(doneOf(approved).text, "done");
    assert.equal(s.executor.requests.length, 1);
  } finally {
    await close();
    await s.close();
  }
});

Deno.test("a planner that answers in prose fails closed and its turn is rolled back", async () => {
  const s = await setup({
    planner: [
      { text: "Here is my plan: just edit it." },
      { text: "I already told you." },
      { toolCalls: [fakeToolCall("submit_plan", PLAN)] },
    ],
    executor: [{ text: "ran" }],
  });
  const { coordinator, close } = await s.open();
  try {
    const events = await drain(coordinator, { text: "plan first: fix it" });
    const done = doneOf(events);
    assert.equal(done.status, "error");
    assert.equal(done.error?.code, "planner_failed");
    assert.equal(s.executor.requests.length, 0, "no degradation to the executor");
    // The protocol error was answered inside the planner session, once.
    assert.equal(s.planner.requests.length, 2);
    assert.match(s.planner.requests[1].bodyText, /No plan was delivered/);
    // The next planner turn starts from before the failed one.
    const ok = await drain(coordinator, { text: "plan first: fix it" });
    assert.equal(doneOf(ok).text, "ran");
    const next = s.planner.requests[2].bodyText;
    assert.doesNotMatch(next, /just edit it|No plan was delivered/);
  } finally {
    await close();
    await s.close();
  }
});

Deno.test("a planner that never converges gets one final round, then fails closed", async () => {
  const reads = (_req: RecordedRequest) => ({ toolCalls: [fakeToolCall("ls", { path: "." })] });
  const s = await setup({ planner: reads, executor: [] }, { plannerTurns: 3 });
  const { coordinator, close } = await s.open();
  try {
    const done = doneOf(await drain(coordinator, { text: "/plan-only map the repo" }));
    assert.equal(done.status, "error");
    assert.equal(done.error?.code, "planner_failed");
    // 3 research requests, then the final round of at most 2.
    assert.equal(s.planner.requests.length, 5);
    assert.match(s.planner.requests[3].bodyText, /research budget is spent/);
    assert.equal(s.executor.requests.length, 0);
  } finally {
    await close();
    await s.close();
  }
});

Deno.test("a configured planner model that cannot be resolved is a configuration error", async () => {
  const s = await setup({ planner: [], executor: [] }, { plannerModel: "nowhere/none" });
  try {
    await assert.rejects(() => s.open(), (error: Error) => {
      assert.equal((error as { code?: string }).code, "config_invalid");
      return true;
    });
  } finally {
    await s.close();
  }
});

Deno.test("reasonix run --plan approve, then --continue --approve-plan, with --json", async () => {
  const s = await setup({
    planner: [{ toolCalls: [fakeToolCall("submit_plan", PLAN)] }],
    executor: [{ text: "carried out" }],
  });
  const env = { EXEC_KEY: "sk-exec", PLAN_KEY: "sk-plan" };
  try {
    const first = await runReasonix(["run", "--plan", "approve", "--json", "fix the login bug"], {
      cwd: s.repo,
      home: s.home,
      env,
    });
    assert.equal(first.code, 0, first.stderr);
    const waiting = JSON.parse(first.stdout);
    assert.equal(waiting.status, "awaiting_approval");
    assert.deepEqual(waiting.route, { route: "plan_approve", reason: "flag" });
    assert.equal(waiting.plan.status, "pending");
    assert.match(waiting.plan.id, /^plan-[0-9a-f]{10}$/);
    assert.ok(waiting.sessions.planner.tokens.prompt > 0);
    assert.equal(waiting.sessions.executor, undefined);
    assert.equal(s.executor.requests.length, 0);

    const second = await runReasonix(["run", "--continue", "--approve-plan", "--json"], {
      cwd: s.repo,
      home: s.home,
      env,
    });
    assert.equal(second.code, 0, second.stderr);
    const ran = JSON.parse(second.stdout);
    assert.equal(ran.status, "completed");
    assert.equal(ran.result, "carried out");
    assert.equal(ran.plan.id, waiting.plan.id);
    assert.equal(ran.plan.status, "approved");
    assert.ok(ran.sessions.executor.tokens.prompt > 0);
    assert.equal(ran.session_id, waiting.session_id, "the planner session is not continued");

    const usage = await runReasonix(["run", "--approve-plan", "x"], {
      cwd: s.repo,
      home: s.home,
      env,
    });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--approve-plan .*--continue or --resume/);
  } finally {
    await s.close();
  }
});

Deno.test("a planner model that does not exist stops reasonix run with exit 2", async () => {
  const s = await setup({ planner: [], executor: [] }, { plannerModel: "plan/missing-model" });
  try {
    const bad = await runReasonix(["run", "--plan", "first", "fix it"], {
      cwd: s.repo,
      home: s.home,
      env: { EXEC_KEY: "sk-exec", PLAN_KEY: "sk-plan" },
    });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /missing-model|planner_model/);
    assert.equal(s.executor.requests.length, 0);
  } finally {
    await s.close();
  }
});

const MCP_SERVER = fixtureServerToml();

/** The newest tool result of an Anthropic-format request. */
function lastAnthropicResult(req: RecordedRequest): string {
  const messages = (req.body as { messages: { content: unknown }[] }).messages;
  return JSON.stringify(messages.at(-1)?.content);
}

Deno.test("the planner reaches MCP only through use_capability, and never a destructive tool", async () => {
  const s = await setup({
    planner: [
      { toolCalls: [fakeToolCall("use_capability", {})] },
      { toolCalls: [fakeToolCall("use_capability", { capability: "mcp:fx:delete_everything" })] },
      {
        toolCalls: [
          fakeToolCall("use_capability", { capability: "mcp:fx:echo", arguments: { text: "hi" } }),
        ],
      },
      { toolCalls: [fakeToolCall("submit_plan", PLAN)] },
    ],
    executor: [{ text: "ok" }],
  }, { extraToml: MCP_SERVER });
  const { coordinator, close } = await s.open();
  try {
    const done = doneOf(await drain(coordinator, { text: "plan only: look around" }));
    assert.equal(done.status, "completed", JSON.stringify(done));
    const [first, listed, refused, echoed] = s.planner.requests;
    const names = (first.body as { tools: { name: string }[] }).tools.map((t) => t.name);
    assert.ok(!names.some((n) => n.startsWith("mcp__")), names.join(","));
    const list = lastAnthropicResult(listed);
    assert.match(list, /mcp:fx:echo/);
    assert.doesNotMatch(list, /delete_everything/);
    assert.match(lastAnthropicResult(refused), /delete_everything/);
    assert.match(lastAnthropicResult(refused), /"is_error":true/);
    assert.match(lastAnthropicResult(echoed), /hi/);
  } finally {
    await close();
    await s.close();
  }
});

Deno.test("reasonix run --plan only --output-format stream-json: route and plan lines", async () => {
  const s = await setup({
    planner: [
      { toolCalls: [fakeToolCall("read_file", { path: "src/auth.ts" })] },
      { toolCalls: [fakeToolCall("submit_plan", PLAN)] },
    ],
    executor: [],
  });
  try {
    const out = await runReasonix(
      ["run", "--plan", "only", "--output-format", "stream-json", "map the auth code"],
      { cwd: s.repo, home: s.home, env: { EXEC_KEY: "sk-exec", PLAN_KEY: "sk-plan" } },
    );
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const sub = (name: string) => lines.filter((l) => l.subtype === name);
    assert.deepEqual(sub("reasonix_route").map((l) => [l.route, l.reason]), [[
      "plan_only",
      "flag",
    ]]);
    assert.deepEqual(sub("reasonix_plan").map((l) => l.status), ["submitted", "saved"]);
    assert.match(sub("reasonix_plan")[1].plan, /## Fix login/);
    assert.equal(sub("reasonix_planner_tool_use")[0].name, "read_file");
    // The planner's calls are not the executor's conversation.
    assert.equal(lines.filter((l) => l.type === "assistant").length, 0);
    const result = lines.at(-1);
    assert.equal(result.type, "result");
    assert.equal(result.is_error, false);
    assert.ok(result.reasonix.sessions.planner.tokens.prompt > 0);
  } finally {
    await s.close();
  }
});

Deno.test("without a planner model a plan route runs the executor in Plan mode", async () => {
  const exitPlan = (plan: string) =>
    fakeToolCall("use_capability", { capability: "exit_plan_mode", arguments: { plan } });
  const s = await setup({
    planner: [],
    executor: (req: RecordedRequest) => {
      const user = lastUser(req);
      const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
      // Tool results since the last user message: this turn's progress.
      const since = messages.length - 1 - messages.map((m) => m.role).lastIndexOf("user");
      const tools = messages.slice(messages.length - since).filter((m) => m.role === "tool")
        .length;
      if (user.includes("<plan id=")) {
        return tools === 0
          ? { toolCalls: [fakeToolCall("write_file", { path: "done.txt", content: "ok" })] }
          : { text: "carried out" };
      }
      if (tools === 0) {
        return { toolCalls: [fakeToolCall("write_file", { path: "early.txt", content: "x" })] };
      }
      if (tools === 1) return { toolCalls: [exitPlan("# Fix login\n\n1. Trim the password")] };
      return { text: "The plan needs your approval." };
    },
  }, { plannerModel: null, extraToml: '\n[permissions]\nmode = "auto"\n' });
  let session: string;
  try {
    {
      const { coordinator, close } = await s.open();
      try {
        const events = await drain(coordinator, { text: "fix login", route: { plan: "approve" } });
        const done = doneOf(events);
        assert.equal(done.status, "awaiting_approval");
        assert.ok(events.some((e) => e.type === "plan" && e.status === "pending"));
        // Writers were blocked while planning.
        await assert.rejects(() => Deno.stat(join(s.repo, "early.txt")));
        assert.equal(s.planner.requests.length, 0);
        session = coordinator.executor.session.id;
      } finally {
        await close();
      }
    }
    const { coordinator, close } = await s.open({ resume: session });
    try {
      const done = doneOf(await drain(coordinator, { text: "", route: { approvePlan: true } }));
      assert.equal(done.status, "completed", JSON.stringify(done));
      assert.match(
        lastUser(s.executor.requests.at(-2)!),
        /<plan id="plan-[0-9a-f]{10}"[\s\S]*Trim the password/,
      );
      assert.equal(await Deno.readTextFile(join(s.repo, "done.txt")), "ok");
    } finally {
      await close();
    }
  } finally {
    await s.close();
  }
});

Deno.test("an explicit goal start plans its first round; without a planner it runs as is", async () => {
  const s = await setup({
    planner: [{ toolCalls: [fakeToolCall("submit_plan", PLAN)] }],
    executor: [{ text: "round one" }, { text: "round two" }],
  });
  const { coordinator, close } = await s.open();
  try {
    const first = await drain(coordinator, { text: "ship login", route: { goalStart: true } });
    assert.deepEqual(first.find((e) => e.type === "route"), {
      type: "route",
      route: "goal_start",
      reason: "goal",
    });
    assert.equal(doneOf(first).text, "round one");
    assert.match(
      lastUser(s.executor.requests[0]),
      /<plan id="plan-[0-9a-f]{10}" route="goal_start">/,
    );
    // Later rounds are ordinary turns.
    const second = await drain(coordinator, { text: "Continue working toward the goal." });
    assert.equal(doneOf(second).text, "round two");
    assert.equal(s.planner.requests.length, 1);
  } finally {
    await close();
    await s.close();
  }
  const bare = await setup({ planner: [], executor: [{ text: "ran" }] }, { plannerModel: null });
  const opened = await bare.open();
  try {
    const events = await drain(opened.coordinator, { text: "ship it", route: { goalStart: true } });
    assert.equal(doneOf(events).text, "ran");
    assert.doesNotMatch(lastUser(bare.executor.requests[0]), /<plan-mode>/);
  } finally {
    await opened.close();
    await bare.close();
  }
});
