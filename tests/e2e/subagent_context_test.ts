/**
 * Subagents through the real host and the fake LLM server: model and effort precedence,
 * plan mode and language as run options, `continue_from` / `fork_from`, and the narrowing of
 * a claim-less writer's reservation.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  claimlessBesideClaimed,
  type HostSession,
  isChild,
  lastTool,
  messages,
  openSession,
  toolResults,
} from "./delegation_support.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import type { AgentSpec } from "../../core/host/mod.ts";
import type { SubagentResult } from "../../core/subagent/mod.ts";
import {
  type FakeStep,
  fakeToolCall,
  type RecordedRequest,
  startFakeLlm,
} from "../fake_llm/mod.ts";

interface Msg {
  role: string;
  content: string | null;
}

const users = (req: RecordedRequest): string[] =>
  messages(req).filter((m) => m.role === "user").map((m) => m.content ?? "");
const toolNames = (req: RecordedRequest): string[] =>
  (req.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);

/** The parent's steps, and each child's by a word of its latest task turn. */
function script(
  parent: (req: RecordedRequest) => FakeStep,
  children: Record<string, (req: RecordedRequest) => FakeStep>,
) {
  return (req: RecordedRequest): FakeStep => {
    if (!isChild(req)) return parent(req);
    const task = users(req).at(-1) ?? "";
    for (const [word, step] of Object.entries(children)) if (task.includes(word)) return step(req);
    throw new Error(`no child script for: ${task.slice(0, 200)}`);
  };
}

/** The parent delegates `tasks` once, then reports the task result. */
function delegateOnce(tasks: () => unknown[]) {
  return (req: RecordedRequest): FakeStep =>
    lastTool(req) !== undefined
      ? { text: "reported" }
      : { toolCalls: [fakeToolCall("task", { tasks: tasks() })] };
}

function open(
  fake: { url: string },
  files: Record<string, string>,
  toml = "",
  spec: AgentSpec = {},
): Promise<HostSession> {
  return openSession(fake, files, toml, { spec, turnTimeoutMs: 30_000 });
}

interface RunMeta {
  sessionId: string;
  capsuleHash: string;
}

function runs(events: AgentEvent[]): RunMeta[] {
  const end = events.find((e) => e.type === "tool_end" && e.call.name === "task");
  assert.ok(end && end.type === "tool_end", "the task tool ran");
  return (end.result.meta?.subagents ?? []) as RunMeta[];
}

async function capsuleOf(host: { sessionDir: string }, id: string) {
  const path = join(host.sessionDir, "subagents", `${id}.capsule.json`);
  return JSON.parse(await Deno.readTextFile(path)).capsule;
}

const profile = (name: string, front: string) =>
  `---\nname: ${name}\ndescription: ${name}\nrunAs: subagent\nread-only: true\n${front}---\nYou are the ${name} subagent.\n`;

const ALT_PROVIDER = (url: string) => `
[[providers]]
name = "alt"
kind = "openai"
base_url = "${url}"
models = ["m-cfg", "m-call", "m-front", "m-default"]
api_key_env = "REASONIX_E2E_KEY"
context_window = 128000
`;

Deno.test("model and effort: profile config > call arguments > frontmatter > agent defaults", async () => {
  const seen: Record<string, { model: string; effort?: string }> = {};
  const child = (word: string) => (req: RecordedRequest): FakeStep => {
    const body = req.body as { model: string; reasoning_effort?: string };
    seen[word] = { model: body.model, effort: body.reasoning_effort };
    return { text: `${word} ok` };
  };
  const fake = await startFakeLlm({
    script: script(
      delegateOnce(() => [
        // [subagents.cfgd] beats the call's own model and effort.
        { prompt: "one: x", profile: "cfgd", model: "alt/m-call", effort: "xhigh" },
        // The call beats the frontmatter.
        { prompt: "two: x", profile: "front", model: "alt/m-call", effort: "xhigh" },
        // The frontmatter beats [agent] subagent_model / subagent_effort.
        { prompt: "three: x", profile: "front" },
        // [agent] subagent_* beat the executor's model and effort.
        { prompt: "four: x", profile: "bare" },
      ]),
      { one: child("one"), two: child("two"), three: child("three"), four: child("four") },
    ),
  });
  const front = "model: alt/m-front\neffort: medium\n";
  const s = await open(
    fake,
    {
      ".reasonix/skills/cfgd/SKILL.md": profile("cfgd", front),
      ".reasonix/skills/front/SKILL.md": profile("front", front),
      ".reasonix/skills/bare/SKILL.md": profile("bare", ""),
    },
    `${ALT_PROVIDER(fake.url)}
[agent]
reasoning_effort = "executor"
subagent_model = "alt/m-default"
subagent_effort = "low"

[subagents.cfgd]
model = "alt/m-cfg"
effort = "high"
`,
  );
  try {
    await s.drain("delegate");
    assert.deepEqual(seen, {
      one: { model: "m-cfg", effort: "high" },
      two: { model: "m-call", effort: "xhigh" },
      three: { model: "m-front", effort: "medium" },
      four: { model: "m-default", effort: "low" },
    });
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("without any subagent setting a child runs on its parent's model and effort", async () => {
  const seen: { model: string; effort?: string }[] = [];
  const fake = await startFakeLlm({
    script: script(delegateOnce(() => [{ prompt: "five: x", profile: "bare" }]), {
      five: (req) => {
        const body = req.body as { model: string; reasoning_effort?: string };
        seen.push({ model: body.model, effort: body.reasoning_effort });
        return { text: "ok" };
      },
    }),
  });
  const files = { ".reasonix/skills/bare/SKILL.md": profile("bare", "") };
  const toml = `${ALT_PROVIDER(fake.url)}\n[agent]\nreasoning_effort = "configured"\n`;
  // The parent runs on another model and effort than the configured defaults: the child follows
  // the parent, not the configuration.
  const s = await open(fake, files, toml, {
    model: "alt/m-call",
    context: { reasoningEffort: "parent" },
  });
  const plain = await open(fake, files, toml);
  try {
    await s.drain("delegate");
    await plain.drain("delegate");
    assert.deepEqual(seen, [
      { model: "m-call", effort: "parent" },
      { model: "fake-model", effort: "configured" },
    ]);
  } finally {
    await s.close();
    await plain.close();
    await fake.close();
  }
});

Deno.test("plan mode and the reply language reach a child as run options; in plan mode it only reads", async () => {
  const fake = await startFakeLlm({
    script: script(delegateOnce(() => [{ prompt: "plan: change src", write_paths: ["src"] }]), {
      plan: (req) =>
        toolResults(req) === 0
          ? { toolCalls: [fakeToolCall("write_file", { path: "src/new.txt", content: "no" })] }
          : { text: "I would change src/a.ts" },
    }),
  });
  const s = await open(fake, { "src/a.ts": "a\n" }, `[agent]\nreasoning_language = "zh-CN"\n`);
  try {
    s.host.planMode.enter();
    const [run] = runs(await s.drain("plan a change"));
    const [first] = fake.requests.filter(isChild);
    assert.ok(!toolNames(first).includes("write_file"), toolNames(first).join(","));
    assert.ok(!toolNames(first).includes("bash"));
    assert.match(users(first)[0], /<plan-mode>\nPlan mode is on: nothing may change yet\./);
    assert.match(users(first)[0], /<language>Reason and reply in zh-CN\.<\/language>/);
    assert.doesNotMatch(users(first)[0], /exit_plan_mode/);
    await assert.rejects(() => Deno.stat(join(s.repo, "src", "new.txt")));
    const capsule = await capsuleOf(s.host, run.sessionId);
    assert.deepEqual(capsule.runOptions, { planMode: true, language: "zh-CN" });
    assert.equal(capsule.systemPrompt.source, "default_read_only_task");
    assert.deepEqual(capsule.writePaths, []);

    // Out of plan mode the same writer gets its writers, and no plan-mode block.
    s.host.planMode.exit();
    const [after] = runs(await s.drain("now change it"));
    const second = fake.requests.filter(isChild).filter((r) => toolResults(r) === 0).at(-1)!;
    assert.ok(toolNames(second).includes("write_file"));
    assert.doesNotMatch(users(second)[0], /<plan-mode>/);
    assert.equal(await Deno.readTextFile(join(s.repo, "src", "new.txt")), "no");
    assert.deepEqual((await capsuleOf(s.host, after.sessionId)).runOptions, {
      planMode: false,
      language: "zh-CN",
    });
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("continue_from appends to a child's transcript; fork_from copies it into a new session", async () => {
  let target = "";
  let twice = false;
  let viaTool = false;
  const fake = await startFakeLlm({
    script: script(
      (req) =>
        lastTool(req) !== undefined ? { text: "reported" } : {
          toolCalls: [fakeToolCall("task", {
            tasks: !target
              ? [{ prompt: "first: the word is ZEBRA", read_only: true }]
              : viaTool
              ? [{ prompt: "branch: which word?", read_only: true, fork_from: target }]
              : Array.from(
                { length: twice ? 2 : 1 },
                () => ({ prompt: "again: which word?", read_only: true, continue_from: target }),
              ),
          })],
        },
      {
        first: () => ({ text: "noted ZEBRA" }),
        again: (req) => ({ text: users(req).some((u) => u.includes("ZEBRA")) ? "ZEBRA" : "?" }),
        branch: (req) => ({
          text: users(req).some((u) => u.includes("ZEBRA")) ? "forked ZEBRA" : "?",
        }),
      },
    ),
  });
  const s = await open(fake, {});
  try {
    const [first] = runs(await s.drain("start"));
    const path = join(s.host.sessionDir, "subagents", `${first.sessionId}.jsonl`);
    const lines = async () => (await Deno.readTextFile(path)).trim().split("\n").length;
    const before = await lines();

    target = first.sessionId;
    const [again] = runs(await s.drain("ask again"));
    assert.equal(again.sessionId, first.sessionId, "continue keeps the session");
    const asked = fake.requests.filter(isChild).at(-1)!;
    assert.equal(users(asked).length, 2);
    assert.match(users(asked)[0], /^<workspace-context>/);
    assert.doesNotMatch(users(asked)[1], /<workspace-context>/);
    assert.ok(await lines() > before, "the continued run appended to the transcript");
    assert.deepEqual((await capsuleOf(s.host, again.sessionId)).continued, {
      mode: "continue",
      from: first.sessionId,
    });

    const continued = await lines();
    const it = s.host.runSubagent({
      task: "branch: which word?",
      readOnly: true,
      forkFrom: first.sessionId.slice(0, 8),
      parent: { depth: 0 },
    }, { signal: AbortSignal.timeout(30_000) });
    let step = await it.next();
    while (!step.done) step = await it.next();
    const forked: SubagentResult = step.value;
    assert.equal(forked.text, "forked ZEBRA");
    assert.notEqual(forked.sessionId, first.sessionId, "a fork gets a new session");
    assert.equal(await lines(), continued, "the original transcript is untouched");
    assert.deepEqual(forked.capsule.continued, { mode: "fork", from: first.sessionId });
    const copy = await Deno.readTextFile(
      join(s.host.sessionDir, "subagents", `${forked.sessionId}.jsonl`),
    );
    assert.match(copy.split("\n")[0], new RegExp(forked.sessionId));
    assert.match(copy, /ZEBRA/);

    // The model forks through the `task` tool's own fork_from.
    viaTool = true;
    const [toolFork] = runs(await s.drain("fork it"));
    assert.notEqual(toolFork.sessionId, first.sessionId);
    assert.equal(await lines(), continued, "the original transcript is still untouched");
    assert.deepEqual((await capsuleOf(s.host, toolFork.sessionId)).continued, {
      mode: "fork",
      from: first.sessionId,
    });
    viaTool = false;

    // Two runs cannot append to one transcript at once: the second is refused, not interleaved.
    twice = true;
    const both = await s.drain("ask twice");
    const end = both.find((e) => e.type === "tool_end" && e.call.name === "task");
    assert.ok(end?.type === "tool_end");
    assert.match(end.result.content, /subagent session \S+ is in use by another run/);
    assert.equal(runs(both).length, 1);

    await assert.rejects(async () => {
      const none = s.host.runSubagent({
        task: "branch: x",
        readOnly: true,
        continueFrom: "no-such-session",
        parent: { depth: 0 },
      }, { signal: AbortSignal.timeout(5_000) });
      await none.next();
    }, /no subagent session "no-such-session"/);
    const refused = async (extra: Record<string, unknown>, why: RegExp) =>
      await assert.rejects(async () => {
        await s.host.runSubagent({
          task: "branch: x",
          readOnly: true,
          parent: { depth: 0 },
          ...extra,
        }, { signal: AbortSignal.timeout(5_000) }).next();
      }, why);
    await refused({ continueFrom: first.sessionId, forkFrom: first.sessionId }, /not both/);
    await refused({ forkFrom: first.sessionId, ephemeral: true }, /keeps no subagent transcripts/);
  } finally {
    await s.close();
    await fake.close();
  }
});

/** A claim-less writer run by `wideSteps` beside a writer claiming `b`. */
const reservation = (wideSteps: FakeStep[]) => claimlessBesideClaimed(wideSteps, open);

/** A slow step that keeps the claim-less writer running after its writes. */
const SLOW_READ: FakeStep = {
  toolCalls: [fakeToolCall("read_file", { path: "a.txt" })],
  delayMs: 400,
};

Deno.test("a claim-less writer that wrote only through path tools lets a disjoint claim start beside it", async () => {
  const t = await reservation([
    { toolCalls: [fakeToolCall("write_file", { path: "a.txt", content: "wide" })] },
    SLOW_READ,
    { text: "wide done" },
  ]);
  assert.ok(t.claimedStart < t.wideLast, "the claimed writer started while the wide one ran");
});

Deno.test("a bash command keeps a claim-less writer's reservation whole; a plainly read-only one does not", async () => {
  const reader = await reservation([
    { toolCalls: [fakeToolCall("bash", { command: "ls && cat a.txt" })] },
    { toolCalls: [fakeToolCall("write_file", { path: "a.txt", content: "wide" })] },
    SLOW_READ,
    { text: "wide done" },
  ]);
  assert.ok(reader.claimedStart < reader.wideLast, "a read-only command changed nothing");
  const t = await reservation([
    { toolCalls: [fakeToolCall("bash", { command: "echo hi > c.txt" })] },
    { toolCalls: [fakeToolCall("write_file", { path: "a.txt", content: "wide" })] },
    SLOW_READ,
    { text: "wide done" },
  ]);
  assert.ok(t.claimedStart > t.wideLast, "the claimed writer waited for the wide one");
});
