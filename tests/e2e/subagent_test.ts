/**
 * Subagents end to end through the real host and the fake LLM server, which scripts the parent
 * and each child by what their requests carry (the child's system prompt and task text).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type HostSession, openSession } from "./delegation_support.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import { emptyTotals } from "../../core/agent/cost.ts";
import { summarize } from "../../cli/output/json_summary.ts";
import {
  type FakeStep,
  fakeToolCall,
  type RecordedRequest,
  startFakeLlm,
} from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";
import { startUiSession } from "../support/ui_session.ts";
import { fixtureServerToml } from "../mcp/servers.ts";

interface Msg {
  role: string;
  content: string | null;
  tool_calls?: { function: { name: string; arguments: string } }[];
}

function messages(req: RecordedRequest): Msg[] {
  return (req.body as { messages: Msg[] }).messages;
}

function system(req: RecordedRequest): string {
  return messages(req).find((m) => m.role === "system")?.content ?? "";
}

function firstUser(req: RecordedRequest): string {
  return messages(req).find((m) => m.role === "user")?.content ?? "";
}

function lastTool(req: RecordedRequest): string | undefined {
  const last = messages(req).at(-1);
  return last?.role === "tool" ? last.content ?? "" : undefined;
}

const isChild = (req: RecordedRequest) => system(req).startsWith("You are a Reasonix");

/** A script: the parent's steps, and each child's steps by a word of its task. */
function script(
  parent: (req: RecordedRequest) => FakeStep,
  children: Record<string, (req: RecordedRequest) => FakeStep>,
) {
  return (req: RecordedRequest): FakeStep => {
    if (!/subagent/.test(system(req))) return parent(req);
    const task = firstUser(req);
    for (const [word, step] of Object.entries(children)) if (task.includes(word)) return step(req);
    throw new Error(`no child script for: ${task.slice(0, 200)}`);
  };
}

function open(
  fake: { url: string },
  files: Record<string, string>,
  toml = "",
): Promise<HostSession> {
  return openSession(fake, files, toml, { mcpReadyWaitMs: 15_000, turnTimeoutMs: 30_000 });
}

/** The parent delegates `tasks` once, then answers with the task result it got. */
function delegateOnce(tasks: unknown[]) {
  return (req: RecordedRequest): FakeStep => {
    const result = lastTool(req);
    if (result !== undefined) return { text: `report: ${result}` };
    return { toolCalls: [fakeToolCall("task", { tasks })] };
  };
}

function taskResult(events: AgentEvent[]): { content: string; meta: Record<string, unknown> } {
  const end = events.find((e) => e.type === "tool_end" && e.call.name === "task");
  assert.ok(end && end.type === "tool_end", "the task tool ran");
  return { content: end.result.content, meta: end.result.meta ?? {} };
}

Deno.test("a read-only child cannot write: it has no writers, and its capsule inherits nothing", async () => {
  const fake = await startFakeLlm({
    script: script(delegateOnce([{ prompt: "look: find hashPassword", read_only: true }]), {
      look: (req) =>
        lastTool(req) === undefined
          ? { toolCalls: [fakeToolCall("write_file", { path: "x.txt", content: "no" })] }
          : { text: "found it in src/auth.ts:1" },
    }),
  });
  const s = await open(fake, { "src/auth.ts": "export function hashPassword() {}\n" });
  try {
    const events = await s.drain("where is hashPassword?");
    const { content, meta } = taskResult(events);
    assert.match(content, /found it in src\/auth.ts:1/);
    const child = fake.requests.filter(isChild);
    const tools = (child[0].body as { tools: { function: { name: string } }[] }).tools
      .map((t) => t.function.name);
    assert.ok(!tools.includes("write_file") && !tools.includes("bash"), tools.join(","));
    assert.ok(
      !tools.includes("memory") && !tools.includes("history") && !tools.includes("remember"),
    );
    assert.match(lastTool(child[1])!, /write_file/);
    await assert.rejects(() => Deno.stat(join(s.repo, "x.txt")));
    // Explicit context: the workspace block and the task, no environment or instructions.
    assert.match(firstUser(child[0]), /^<workspace-context>\nworkspace_root: /);
    assert.doesNotMatch(child[0].bodyText, /<environment>|REASONIX\.md/);
    const [run] = meta.subagents as { sessionId: string; capsuleHash: string }[];
    const sidecar = JSON.parse(
      await Deno.readTextFile(
        join(s.host.sessionDir, "subagents", `${run.sessionId}.capsule.json`),
      ),
    );
    assert.equal(sidecar.capsuleHash, run.capsuleHash);
    assert.ok(Object.values(sidecar.capsule.inherited).every((v) => v === false));
    assert.equal(sidecar.capsule.systemPrompt.source, "default_read_only_task");
    assert.deepEqual(sidecar.capsule.writePaths, []);
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("a writer's claim holds against .. and a symlink, and the refusals are reported", async () => {
  const fake = await startFakeLlm({
    script: script(delegateOnce([{ prompt: "edit: fix src", write_paths: ["src"] }]), {
      edit: (req) => {
        const n = messages(req).filter((m) => m.role === "tool").length;
        if (n === 0) {
          return {
            toolCalls: [fakeToolCall("write_file", { path: "src/../outside.txt", content: "x" })],
          };
        }
        if (n === 1) {
          return {
            toolCalls: [fakeToolCall("write_file", { path: "src/link/evil.txt", content: "x" })],
          };
        }
        if (n === 2) {
          return { toolCalls: [fakeToolCall("write_file", { path: "src/ok.txt", content: "ok" })] };
        }
        return { text: "done" };
      },
    }),
  });
  const s = await open(fake, { "src/a.ts": "a\n", "other/b.ts": "b\n" });
  await Deno.symlink(join(s.repo, "other"), join(s.repo, "src", "link"));
  try {
    const events = await s.drain("fix src");
    const { content, meta } = taskResult(events);
    await assert.rejects(() => Deno.stat(join(s.repo, "outside.txt")));
    await assert.rejects(() => Deno.stat(join(s.repo, "other", "evil.txt")));
    assert.equal(await Deno.readTextFile(join(s.repo, "src", "ok.txt")), "ok");
    const [run] = meta.subagents as { refused: string[]; written: string[] }[];
    assert.deepEqual(
      run.refused.sort(),
      [join(s.repo, "other", "evil.txt"), join(s.repo, "outside.txt")].sort(),
    );
    assert.deepEqual(run.written, [join(s.repo, "src", "ok.txt")]);
    assert.match(content, /refused outside write_paths: /);
    assert.match(content, /wrote: .*src\/ok\.txt/);
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("two writers with disjoint claims run at once; one without a claim runs alone", async () => {
  const windows: Record<string, [number, number]> = {};
  // The unclaimed writer changes files with bash, so its reservation stays the whole workspace
  // (path-only writes would narrow it: subagent_context_test.ts).
  const child = (word: string, path: string, shell = false) => (req: RecordedRequest): FakeStep => {
    const n = messages(req).filter((m) => m.role === "tool").length;
    windows[word] ??= [Date.now(), 0];
    if (n === 0) {
      const step = shell
        ? fakeToolCall("bash", { command: `echo ${word} > ${path}` })
        : fakeToolCall("write_file", { path, content: word });
      return { toolCalls: [step], delayMs: 150 };
    }
    windows[word][1] = Date.now();
    return { text: `${word} done` };
  };
  const fake = await startFakeLlm({
    script: script(
      delegateOnce([
        { prompt: "alpha: write a", write_paths: ["a"] },
        { prompt: "beta: write b", write_paths: ["b"] },
        { prompt: "gamma: write anywhere" },
      ]),
      {
        alpha: child("alpha", "a/x.txt"),
        beta: child("beta", "b/x.txt"),
        gamma: child("gamma", "c.txt", true),
      },
    ),
  });
  const s = await open(fake, { "a/.keep": "", "b/.keep": "" });
  try {
    const events = await s.drain("write three things");
    assert.match(taskResult(events).content, /alpha done[\s\S]*beta done[\s\S]*gamma done/);
    const overlap = (x: [number, number], y: [number, number]) => x[0] < y[1] && y[0] < x[1];
    assert.ok(overlap(windows.alpha, windows.beta), "claimed writers overlap");
    assert.ok(
      !overlap(windows.gamma, windows.alpha) && !overlap(windows.gamma, windows.beta),
      "the unclaimed writer ran alone",
    );
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("identical runs in one session record the same capsule hash", async () => {
  const parent = (req: RecordedRequest): FakeStep =>
    lastTool(req) !== undefined ? { text: "ok" } : {
      toolCalls: [{
        id: "call_same",
        ...fakeToolCall("task", { tasks: [{ prompt: "look: x", read_only: true }] }),
      }],
    };
  const fake = await startFakeLlm({
    script: script(parent, { look: () => ({ text: "nothing" }) }),
  });
  const s = await open(fake, {});
  try {
    const hash = async () =>
      (taskResult(await s.drain("go")).meta.subagents as { capsuleHash: string }[])[0].capsuleHash;
    const [a, b] = [await hash(), await hash()];
    assert.match(a, /^[0-9a-f]{16}$/);
    assert.equal(a, b);
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("a claimed writer's bash writes only inside the claim (the sandbox is rebound)", async () => {
  const fake = await startFakeLlm({
    script: script(delegateOnce([{ prompt: "shell: write files", write_paths: ["src"] }]), {
      shell: (req) =>
        lastTool(req) === undefined
          ? {
            toolCalls: [fakeToolCall("bash", {
              command: "echo in > src/in.txt; echo out > outside.txt; echo done",
            })],
          }
          : { text: "ran" },
    }),
  });
  const s = await open(fake, { "src/a.ts": "a\n" });
  try {
    const { content } = taskResult(await s.drain("shell things"));
    assert.equal(await Deno.readTextFile(join(s.repo, "src", "in.txt")), "in\n");
    await assert.rejects(() => Deno.stat(join(s.repo, "outside.txt")));
    assert.match(content, /ran: `echo in > src\/in.txt; echo out > outside.txt; echo done`/);
  } finally {
    await s.close();
    await fake.close();
  }
});

const MCP_SERVER = fixtureServerToml();

Deno.test("a claimed writer reaches only read-only MCP tools, through use_capability", async () => {
  const fake = await startFakeLlm({
    script: script(delegateOnce([{ prompt: "mcp: try tools", write_paths: ["src"] }]), {
      mcp: (req) => {
        const n = messages(req).filter((m) => m.role === "tool").length;
        if (n === 0) {
          return { toolCalls: [fakeToolCall("use_capability", { capability: "mcp:fx:pid" })] };
        }
        if (n === 1) {
          return {
            toolCalls: [
              fakeToolCall("use_capability", {
                capability: "mcp:fx:echo",
                arguments: { text: "hey" },
              }),
            ],
          };
        }
        return { text: "tried" };
      },
    }),
  });
  const s = await open(fake, { "src/a.ts": "a\n" }, MCP_SERVER);
  try {
    await s.drain("mcp things");
    const child = fake.requests.filter(isChild);
    const names = (child[0].body as { tools: { function: { name: string } }[] }).tools
      .map((t) => t.function.name);
    assert.ok(!names.some((n) => n.startsWith("mcp__")), names.join(","));
    assert.match(lastTool(child[1])!, /Unknown capability "mcp:fx:pid"/);
    assert.match(lastTool(child[2])!, /hey/);
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("reasonix run --json counts subagent runs, violations and their tokens", async () => {
  const fake = await startFakeLlm({
    script: script(delegateOnce([{ prompt: "edit: one try", write_paths: ["src"] }]), {
      edit: (req) =>
        lastTool(req) === undefined
          ? { toolCalls: [fakeToolCall("write_file", { path: "other.txt", content: "x" })] }
          : { text: "gave up" },
    }),
  });
  const repo = await makeRepo({ "src/a.ts": "a\n" });
  const home = await makeHome(fake.url);
  try {
    const out = await runReasonix(
      ["run", "--json", "--permission-mode", "auto", "edit something"],
      { cwd: repo, home },
    );
    assert.equal(out.code, 0, out.stderr);
    const summary = JSON.parse(out.stdout);
    assert.equal(summary.subagent_runs, 1);
    assert.equal(summary.write_scope_violations, 1);
    assert.ok(summary.subagents.tokens.prompt > 0);
    assert.ok(
      summary.tokens.prompt > summary.subagents.tokens.prompt,
      "children count in the total",
    );
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

const REVIEWER = `---
name: reviewer
description: Reviews code
runAs: subagent
max_turns: 1
---
You are a careful reviewer. Review what you are asked to.
`;

Deno.test("reasonix subagent list, try (read-only) and run, through the one runner", async () => {
  const fake = await startFakeLlm({
    script: (req: RecordedRequest): FakeStep => {
      if (!system(req).startsWith("You are a careful reviewer")) throw new Error("not the profile");
      const n = messages(req).filter((m) => m.role === "tool").length;
      if (n === 0) {
        return { toolCalls: [fakeToolCall("write_file", { path: "review.md", content: "x" })] };
      }
      return { text: "reviewed" };
    },
  });
  const repo = await makeRepo({
    ".reasonix/skills/reviewer/SKILL.md": REVIEWER,
    // Its frontmatter names it otherwise; it is run, and so listed, by its folder's name.
    ".reasonix/skills/second/SKILL.md": REVIEWER.replace("name: reviewer", "name: renamed"),
    "a.ts": "a\n",
  });
  const home = await makeHome(fake.url);
  try {
    const list = await runReasonix(["subagent", "list", "--json"], { cwd: repo, home });
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(JSON.parse(list.stdout).map((p: { name: string }) => p.name), [
      "reviewer",
      "second",
    ]);

    const tried = await runReasonix(
      ["subagent", "try", "reviewer", "--json", "review a.ts"],
      { cwd: repo, home },
    );
    assert.equal(tried.code, 0, tried.stderr);
    const out = JSON.parse(tried.stdout);
    assert.equal(out.result, "reviewed");
    assert.match(out.capsule_hash, /^[0-9a-f]{16}$/);
    // The same fields as `reasonix run --json`, plus the capsule hash.
    const runFields = Object.keys(summarize({
      done: {
        type: "done",
        status: "completed",
        text: "",
        turns: 0,
        toolCalls: 0,
        usage: emptyTotals(),
      },
      info: { model: "", sessionId: "" },
      durationMs: 0,
      permissions: [],
    }));
    for (const field of runFields) assert.ok(field in out, `subagent try --json lacks ${field}`);
    assert.equal(out.tool_calls, 1);
    assert.equal(out.session_id.length > 0, true);
    // Read-only: the profile's writer was never offered, so nothing was written.
    await assert.rejects(() => Deno.stat(join(repo, "review.md")));
    assert.match(lastTool(fake.requests[1])!, /write_file/);
    // max_turns in the frontmatter did not reach the profile: the run took two requests.
    assert.equal(out.turns, 2);

    const ran = await runReasonix(
      ["subagent", "run", "reviewer", "--permission-mode", "auto", "--json", "review a.ts"],
      { cwd: repo, home },
    );
    assert.equal(ran.code, 0, ran.stderr);
    const ranOut = JSON.parse(ran.stdout);
    assert.equal(ranOut.result, "reviewed");
    // The child's own permission decisions are the run's.
    assert.deepEqual(
      ranOut.permissions.map((p: { tool: string }) => p.tool),
      ["write_file"],
    );
    assert.equal(await Deno.readTextFile(join(repo, "review.md")), "x");

    const missing = await runReasonix(["subagent", "try", "nobody", "x"], { cwd: repo, home });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no subagent profile is named "nobody"/);
    // A listed name runs.
    const second = await runReasonix(["subagent", "try", "second", "--json", "x"], {
      cwd: repo,
      home,
    });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(JSON.parse(second.stdout).result, "reviewed");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("reasonix subagent create, edit and delete manage simple profiles only", async () => {
  const repo = await makeRepo({
    ".reasonix/skills/rich/SKILL.md": "---\nrunAs: subagent\ntriggers: pr\n---\nRich.",
    ".reasonix/skills/scripted/SKILL.md": "---\nrunAs: subagent\n---\nHas scripts.",
    ".reasonix/skills/scripted/scripts/run.sh": "echo\n",
  });
  const home = await makeHome("http://127.0.0.1:9");
  const cli = (args: string[]) => runReasonix(["subagent", ...args], { cwd: repo, home });
  const skill = join(repo, ".reasonix", "skills", "rev", "SKILL.md");
  try {
    const created = await cli([
      "create",
      "rev",
      "--read-only",
      "--description",
      "Reviews",
      "--prompt",
      "Review it.",
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(
      await Deno.readTextFile(skill),
      /runAs: subagent\nread-only: true\n---\n\nReview it\./,
    );
    assert.equal((await cli(["create", "rev", "--prompt", "again"])).code, 2);

    // An edit keeps what it was not told to change: the read-only bound survives.
    const edited = await cli(["edit", "rev", "--prompt", "Review it twice."]);
    assert.equal(edited.code, 0, edited.stderr);
    const text = await Deno.readTextFile(skill);
    assert.match(text, /read-only: true/);
    assert.match(text, /description: "Reviews"/);
    assert.match(text, /Review it twice\./);

    for (const rich of ["rich", "scripted"]) {
      const refused = await cli(["edit", rich, "--prompt", "flat"]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /rich skill: .*Edit it by hand/);
      assert.equal((await cli(["delete", rich])).code, 2);
    }
    assert.equal(
      await Deno.readTextFile(join(repo, ".reasonix/skills/rich/SKILL.md")),
      "---\nrunAs: subagent\ntriggers: pr\n---\nRich.",
    );

    assert.equal((await cli(["delete", "rev"])).code, 0);
    await assert.rejects(() => Deno.stat(skill));
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("/<profile> task in the interactive UI runs the profile through the one runner", async () => {
  const s = await startUiSession({
    script: (req: RecordedRequest): FakeStep => {
      if (!system(req).startsWith("You are a careful reviewer")) return { text: "parent" };
      return lastTool(req) === undefined
        ? { toolCalls: [fakeToolCall("read_file", { path: "a.ts" })] }
        : { text: "a.ts looks fine" };
    },
    files: { ".reasonix/skills/reviewer/SKILL.md": REVIEWER, "a.ts": "a\n" },
  });
  try {
    s.type("/reviewer check a.ts");
    s.press({ return: true });
    await s.until(() => s.lines().some((l) => l.includes("a.ts looks fine")), "the child's answer");
    const lines = s.lines();
    assert.ok(lines.some((l) => l.includes("/reviewer check a.ts")), lines.join("\n"));
    assert.ok(lines.some((l) => l.includes("read_file")), lines.join("\n"));
    // The child ran in its own session: the parent's conversation is untouched.
    assert.equal(s.backend.history().length, 0);
    assert.ok(s.fake.requests.every((r) => system(r).startsWith("You are a careful reviewer")));
    s.type("/nobody x");
    s.press({ return: true });
    await s.until(() => s.lines().some((l) => l.includes("Unknown command /nobody")));
  } finally {
    await s.close();
  }
});

Deno.test("stream-json carries each child's events tagged with the child's session id", async () => {
  const fake = await startFakeLlm({
    script: script(delegateOnce([{ prompt: "look: read a.ts", read_only: true }]), {
      look: (req) =>
        lastTool(req) === undefined
          ? { toolCalls: [fakeToolCall("read_file", { path: "a.ts" })] }
          : { text: "read it" },
    }),
  });
  const repo = await makeRepo({ "a.ts": "a\n" });
  const home = await makeHome(fake.url);
  try {
    const out = await runReasonix(
      ["run", "--output-format", "stream-json", "--permission-mode", "auto", "look"],
      { cwd: repo, home },
    );
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const child = lines.filter((l) => l.subtype === "reasonix_child");
    assert.deepEqual(child.map((l) => l.event), ["usage", "tool_use", "tool_result", "usage"]);
    assert.match(child[0].child_id, /^[0-9a-f-]{36}$/);
    assert.ok(child.every((l) => l.child_id === child[0].child_id));
    const task = lines.find((l) => l.type === "assistant" && l.message.content[0].name === "task");
    assert.ok(child.every((l) => l.tool_use_id === task.message.content[0].id));
    assert.equal(child[1].name, "read_file");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
