/**
 * Delegation counters (spec §3.17) and host adjudication (§3.11) through `reasonix run`, with
 * the fake LLM server scripting the parent and each child.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";
import {
  complete,
  delegate,
  firstUser,
  isChild,
  lastTool,
  script,
  steps,
  system,
} from "./delegation_support.ts";

const PLAN = {
  tasks: [
    { id: "first", prompt: "firstly: write shared", write_paths: ["shared.txt"] },
    {
      id: "second",
      prompt: "secondly: rewrite shared",
      write_paths: ["shared.txt"],
      depends_on: ["first"],
    },
    { id: "liar", prompt: "liar: claim too much", write_paths: ["liar"] },
    { id: "escape", prompt: "escapee: write elsewhere", write_paths: ["lib"] },
  ],
};

const CHILDREN = {
  firstly: steps(
    { toolCalls: [fakeToolCall("write_file", { path: "shared.txt", content: "1\n" })] },
    complete("complete", [{ criterion: "written", kind: "diff", paths: ["shared.txt"] }]),
    { text: "first done" },
  ),
  secondly: steps(
    { toolCalls: [fakeToolCall("write_file", { path: "shared.txt", content: "2\n" })] },
    complete("complete", [{ criterion: "rewritten", kind: "files", paths: ["shared.txt"] }]),
    { text: "second done" },
  ),
  liar: steps(
    {
      toolCalls: [
        fakeToolCall("read_file", { path: "liar/spec.md" }),
        fakeToolCall("write_file", { path: "liar/a.ts", content: "a\n" }),
      ],
    },
    complete("complete", [
      { criterion: "tests pass", kind: "verification", command: "deno test liar" },
      { criterion: "b changed", kind: "diff", paths: ["liar/b.ts"] },
      { criterion: "a changed", kind: "diff", paths: ["liar/a.ts"] },
      { criterion: "spec read", kind: "files", paths: ["liar/spec.md"] },
    ]),
    { text: "all done, tests pass" },
  ),
  escapee: steps(
    { toolCalls: [fakeToolCall("write_file", { path: "src/b.ts", content: "x\n" })] },
    { toolCalls: [fakeToolCall("write_file", { path: "lib/x.ts", content: "x\n" })] },
    { text: "wrote lib/x.ts" },
  ),
};

const EXPECTED = {
  subagent_runs: 4,
  subagent_nested_runs: 0,
  subagent_tool_calls: 9,
  subagent_mutations: 4,
  duplicate_work_paths: 1,
  completion_reports: 3,
  completions_prose_only: 1,
  false_completions: 1,
  criterion_downgrades: 2,
  write_scope_violations: 1,
};

function pick(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(EXPECTED).map((k) => [k, o[k]]));
}

Deno.test("run --json and stream-json count delegation from host records: false completions, downgrades, escapes, duplicates", async () => {
  const fake = await startFakeLlm({ script: script(delegate(PLAN), CHILDREN) });
  const home = await makeHome(fake.url);
  const repos: string[] = [];
  try {
    const outputs: Record<string, unknown>[] = [];
    for (const format of ["json", "stream-json"]) {
      const repo = await makeRepo({ "liar/spec.md": "spec\n", "lib/.keep": "", "src/.keep": "" });
      repos.push(repo);
      const out = await runReasonix(
        ["run", "--output-format", format, "--permission-mode", "auto", "do the four things"],
        { cwd: repo, home },
      );
      assert.equal(out.code, 0, out.stderr);
      const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
      if (format === "json") {
        outputs.push(lines[0]);
        assert.equal(lines[0].tool_calls, 1 + 9, "the parent's call and the children's");
      } else {
        const result = lines.find((l) => l.type === "result");
        outputs.push(result.reasonix);
        assert.equal(result.reasonix.tool_calls, 10);
        const items = lines.filter((l) => l.subtype === "reasonix_fleet_item");
        const liar = items.filter((l) => l.item === "liar").map((l) => l.state);
        assert.deepEqual(liar, ["waiting", "running", "done"]);
        const done = items.find((l) => l.item === "liar" && l.state === "done");
        assert.equal(done.status, "partial");
        assert.match(done.child_id, /^[0-9a-f-]{36}$/);
        assert.ok(done.usage.input_tokens > 0);
        const tagged = lines.filter((l) => l.subtype === "reasonix_child");
        assert.ok(tagged.length > 0 && tagged.every((l) => typeof l.item === "string"));
      }
      assert.equal(await Deno.readTextFile(join(repo, "shared.txt")), "2\n");
    }
    for (const o of outputs) assert.deepEqual(pick(o), EXPECTED);
    // The parent saw the verdict first, with reasons, then the prose, then the receipts.
    const parent = fake.requests.filter((r) => !isChild(r) && lastTool(r) !== undefined);
    const result = lastTool(parent[0])!;
    assert.match(
      result,
      /\[task liar\] <subagent session="[^"]+" status="completed" turns="\d+">\nAdjudicated: partial \(claimed complete\)\n- unsatisfied: tests pass \[verification: deno test liar\] — downgraded: the host recorded no run of `deno test liar`\n- unsatisfied: b changed \[diff: liar\/b.ts\] — downgraded: the host saw no write or read of liar\/b.ts\n- satisfied: a changed \[diff: liar\/a.ts\]\n- satisfied: spec read \[files: liar\/spec.md\]\ncomplete work\nall done, tests pass\n<\/subagent>\nHost receipts: wrote: .*liar\/a.ts/,
    );
    assert.match(result, /\[task escape\][^\n]*\nAdjudicated: none \(prose only/);
    assert.match(
      result,
      /^Fleet: first: done complete; second: done complete; liar: done partial; escape: done/,
    );
  } finally {
    await fake.close();
    await Deno.remove(home, { recursive: true });
    for (const r of repos) await Deno.remove(r, { recursive: true });
  }
});

Deno.test("nested runs count as subagent_nested_runs", async () => {
  const fake = await startFakeLlm({
    script: script(delegate({ tasks: [{ prompt: "outer: ask inside", read_only: true }] }), {
      outer: (req) =>
        lastTool(req) === undefined
          ? {
            toolCalls: [
              fakeToolCall("task", { tasks: [{ prompt: "inner: look", read_only: true }] }),
            ],
          }
          : { text: "outer done" },
      inner: steps({ text: "inner done" }),
    }),
  });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url, "[agent]\nmax_subagent_depth = 2\n");
  try {
    const out = await runReasonix(["run", "--json", "--permission-mode", "auto", "nest"], {
      cwd: repo,
      home,
    });
    assert.equal(out.code, 0, out.stderr);
    const summary = JSON.parse(out.stdout);
    assert.equal(summary.subagent_runs, 2);
    assert.equal(summary.subagent_nested_runs, 1);
    assert.equal(summary.subagent_tool_calls, 1, "the outer child's task call");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

const EXPLORER = `---
name: explorer
description: Looks around
runAs: subagent
read-only: true
---

You are an explorer subagent. Look, then report.
`;

Deno.test("--ablate subagent removes task; a profile still delegates and the counters show it", async () => {
  const fake = await startFakeLlm({
    script: (req) => {
      if (system(req).startsWith("You are an explorer")) {
        return lastTool(req) === undefined
          ? { toolCalls: [fakeToolCall("read_file", { path: "a.ts" })] }
          : { text: "a.ts holds a" };
      }
      return { text: "parent answer" };
    },
  });
  const repo = await makeRepo({ "a.ts": "a\n", ".reasonix/skills/explorer/SKILL.md": EXPLORER });
  const home = await makeHome(fake.url);
  try {
    const plain = await runReasonix(
      ["run", "--json", "--ablate", "subagent", "--permission-mode", "auto", "say hi"],
      { cwd: repo, home },
    );
    assert.equal(plain.code, 0, plain.stderr);
    const tools = (fake.requests[0].body as { tools: { function: { name: string } }[] }).tools
      .map((t) => t.function.name);
    assert.ok(!tools.includes("task"), tools.join(","));
    assert.equal(JSON.parse(plain.stdout).subagent_runs, 0);

    const none = await runReasonix(
      ["run", "--json", "--ablate", "none", "--permission-mode", "auto", "say hi"],
      { cwd: repo, home },
    );
    assert.equal(none.code, 0, none.stderr);
    const last = fake.requests.at(-1)!;
    assert.ok(
      (last.body as { tools: { function: { name: string } }[] }).tools.some((t) =>
        t.function.name === "task"
      ),
    );

    const profiled = await runReasonix(
      [
        "run",
        "--json",
        "--ablate",
        "subagent",
        "--permission-mode",
        "auto",
        "/explorer look at a.ts",
      ],
      { cwd: repo, home },
    );
    assert.equal(profiled.code, 0, profiled.stderr);
    const summary = JSON.parse(profiled.stdout);
    assert.equal(summary.subagent_runs, 1, "the arm's label is not what ran");
    assert.equal(summary.subagent_tool_calls, 1);
    assert.equal(summary.result, "a.ts holds a");
    assert.ok(summary.subagents.tokens.prompt > 0);
    const child = fake.requests.filter((r) => system(r).startsWith("You are an explorer"));
    assert.match(firstUser(child[0]), /look at a\.ts/);

    const bad = await runReasonix(["run", "--ablate", "subagent,tools", "x"], { cwd: repo, home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--ablate takes a comma list of subagent, none; got "tools"/);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
