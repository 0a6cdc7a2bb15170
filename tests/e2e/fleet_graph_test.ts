/**
 * `task` as a fleet graph (spec §3.14) end to end: the real host and runner, children scripted
 * by the fake LLM server through the words of their tasks.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import {
  complete,
  delegate,
  firstUser,
  fleetStates,
  isChild,
  lastTool,
  openSession,
  script,
  steps,
  taskResult,
} from "./delegation_support.ts";

const GRAPH = {
  tasks: [
    { id: "research", prompt: "research: where does the api live", read_only: true },
    {
      id: "backend",
      prompt: "backend: add the endpoint",
      write_paths: ["server"],
      depends_on: ["research"],
    },
    {
      id: "frontend",
      prompt: "frontend: call the endpoint",
      write_paths: ["web"],
      depends_on: ["research"],
    },
    {
      id: "integration",
      prompt: "integration: test both ends",
      // Shares `server` with backend: the edge serializes them.
      write_paths: ["server", "tests"],
      depends_on: ["backend", "frontend"],
    },
    { id: "review", prompt: "review: check it", read_only: true, depends_on: ["integration"] },
  ],
};

Deno.test("research → backend ∥ frontend → integration → review runs in graph order with enforced claims", async () => {
  const windows: Record<string, [number, number]> = {};
  const timed =
    (word: string, child: (req: RecordedRequest) => FakeStep) => (req: RecordedRequest) => {
      windows[word] ??= [Date.now(), 0];
      windows[word][1] = Date.now();
      return child(req);
    };
  const fake = await startFakeLlm({
    script: script(delegate(GRAPH), {
      research: timed(
        "research",
        steps(
          { toolCalls: [fakeToolCall("read_file", { path: "api.md" })] },
          { text: "the api lives in server/" },
        ),
      ),
      backend: timed(
        "backend",
        steps(
          {
            toolCalls: [fakeToolCall("write_file", { path: "server/api.ts", content: "v1\n" })],
            delayMs: 200,
          },
          complete("complete", [{ criterion: "endpoint", kind: "diff", paths: ["server/api.ts"] }]),
          { text: "backend done" },
        ),
      ),
      frontend: timed(
        "frontend",
        steps(
          // Outside its claim: refused, and the host says so.
          { toolCalls: [fakeToolCall("write_file", { path: "server/hack.ts", content: "x" })] },
          {
            toolCalls: [fakeToolCall("write_file", { path: "web/app.ts", content: "app\n" })],
            delayMs: 200,
          },
          complete("complete", [{ criterion: "client", kind: "files", paths: ["web/app.ts"] }]),
          { text: "frontend done" },
        ),
      ),
      integration: timed(
        "integration",
        steps(
          { toolCalls: [fakeToolCall("write_file", { path: "server/api.ts", content: "v2\n" })] },
          {
            toolCalls: [fakeToolCall("write_file", { path: "tests/api_test.ts", content: "t\n" })],
          },
          complete("complete", [{
            criterion: "tested",
            kind: "diff",
            paths: ["tests/api_test.ts"],
          }]),
          { text: "integration done" },
        ),
      ),
      review: timed(
        "review",
        steps(
          { toolCalls: [fakeToolCall("read_file", { path: "server/api.ts" })] },
          { text: "looks right" },
        ),
      ),
    }),
  });
  const s = await openSession(fake, {
    "api.md": "server/\n",
    "server/.keep": "",
    "web/.keep": "",
    "tests/.keep": "",
  });
  try {
    const events = await s.drain("build the feature");
    const { content, meta } = taskResult(events);
    const w = windows;
    const before = (a: string, b: string) => assert.ok(w[a][1] <= w[b][0], `${a} ends before ${b}`);
    before("research", "backend");
    before("research", "frontend");
    before("backend", "integration");
    before("frontend", "integration");
    before("integration", "review");
    assert.ok(
      w.backend[0] < w.frontend[1] && w.frontend[0] < w.backend[1],
      "unordered siblings run at once",
    );
    assert.match(
      content,
      /^Fleet: research: done; backend: done complete; frontend: done complete; integration: done complete; review: done\n/,
    );
    // Adjudicated status and items, then the child's prose, then the host's receipts.
    assert.match(
      content,
      /\[task backend\] <subagent session="[^"]+" status="completed" turns="\d+">\nAdjudicated: complete\n- satisfied: endpoint \[diff: server\/api.ts\]\ncomplete work\nbackend done\n<\/subagent>\nHost receipts: wrote: .*server\/api.ts/,
    );
    assert.match(content, /\[task frontend\][\s\S]*refused outside write_paths: .*server\/hack.ts/);
    assert.equal(await Deno.readTextFile(join(s.repo, "server/api.ts")), "v2\n");
    await assert.rejects(() => Deno.stat(join(s.repo, "server/hack.ts")));
    assert.deepEqual(
      (meta.fleet as { item: string; state: string }[]).map((f) => `${f.item}:${f.state}`),
      ["research:done", "backend:done", "frontend:done", "integration:done", "review:done"],
    );
    const states = fleetStates(events);
    for (const id of ["research", "backend", "frontend", "integration", "review"]) {
      const mine = states.filter((x) => x.startsWith(`${id}:`));
      assert.deepEqual(mine, [`${id}:waiting`, `${id}:running`, `${id}:done`]);
    }
    // Finished items carry their child and cost; a child's own events carry the item.
    const doneDetail = events.flatMap((e) =>
      e.type === "tool_progress" && (e.detail?.fleet as { state?: string })?.state === "done"
        ? [e.detail!.fleet as Record<string, unknown>]
        : []
    );
    assert.ok(doneDetail.every((d) => typeof d.child === "string" && d.usage), "child and usage");
    assert.equal(doneDetail.find((d) => d.item === "backend")?.status, "complete");
    const tagged = events.filter((e) => e.type === "tool_progress" && e.detail?.child);
    assert.ok(
      tagged.length > 0 && tagged.every((e) => e.type === "tool_progress" && e.detail?.item),
    );
    // Dependencies never reach a child: its task is only the prompt.
    const childFirst = fake.requests.filter(isChild).map(firstUser);
    assert.ok(childFirst.every((t) => !t.includes("depends_on")));
    // Only writers get complete_subtask, and their task asks for it.
    const toolsOf = (word: string) => {
      const req = fake.requests.find((r) => isChild(r) && firstUser(r).includes(word))!;
      return (req.body as { tools: { function: { name: string } }[] }).tools.map((t) =>
        t.function.name
      );
    };
    assert.ok(toolsOf("backend:").includes("complete_subtask"));
    assert.ok(!toolsOf("research:").includes("complete_subtask"));
    const backendTask = childFirst.find((t) => t.includes("backend:"))!;
    assert.match(backendTask, /End by calling complete_subtask/);
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("preflight refuses a duplicate id, an unknown id, a self-loop and a cycle before anything starts", async () => {
  const plans: Record<string, unknown> = {
    dup: { tasks: [{ id: "a", prompt: "x: 1" }, { id: "a", prompt: "x: 2" }] },
    unknown: { tasks: [{ id: "a", prompt: "x: 1", depends_on: ["ghost"] }, { prompt: "x: 2" }] },
    self: { tasks: [{ id: "a", prompt: "x: 1", depends_on: ["a"] }, { prompt: "x: 2" }] },
    cycle: {
      tasks: [
        { id: "a", prompt: "x: 1", depends_on: ["b"] },
        { id: "b", prompt: "x: 2", depends_on: ["a"] },
      ],
    },
  };
  const fake = await startFakeLlm({
    script: (req) => {
      if (isChild(req)) throw new Error("no child may start");
      const result = lastTool(req);
      if (result !== undefined) return { text: "ok" };
      const user = [...(req.body as { messages: { role: string; content: string }[] }).messages]
        .reverse().find((m) => m.role === "user")!.content;
      const key = Object.keys(plans).find((k) => user.includes(`plan ${k}`))!;
      return { toolCalls: [fakeToolCall("task", plans[key])] };
    },
  });
  const s = await openSession(fake, {});
  try {
    const expected: Record<string, RegExp> = {
      dup: /fleet refused: duplicate id "a" \(items 1 and 2\)/,
      unknown: /fleet refused: "a" depends on unknown id "ghost"/,
      self: /fleet refused: "a" depends on itself/,
      cycle: /fleet refused: cycle "(a|b)" → "(a|b)" → "\1"/,
    };
    for (const key of Object.keys(plans)) {
      const r = taskResult(await s.drain(`plan ${key}`));
      assert.ok(r.isError, key);
      assert.match(r.content, expected[key]);
    }
    assert.equal(fake.requests.filter(isChild).length, 0);
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("a failed item skips exactly its downstream branch; the other branch runs", async () => {
  const fake = await startFakeLlm({
    script: script(
      delegate({
        tasks: [
          { id: "a", prompt: "alpha: go", profile: "nobody" },
          { id: "b", prompt: "bravo: go", read_only: true, depends_on: ["a"] },
          { id: "c", prompt: "charlie: go", read_only: true, depends_on: ["b"] },
          { id: "d", prompt: "delta: go", read_only: true },
          { id: "e", prompt: "echo: go", read_only: true, depends_on: ["d"] },
          { id: "x", prompt: "xray: go", read_only: true },
          { id: "y", prompt: "yankee: go", read_only: true, depends_on: ["x"] },
        ],
      }),
      {
        delta: steps({ text: "delta done" }),
        echo: steps({ text: "echo done" }),
        // A child whose run fails (the provider refuses the request).
        xray: () => ({
          status: 400,
          body: { error: { message: "bad request", type: "invalid_request_error" } },
        }),
      },
    ),
  });
  const s = await openSession(fake, {});
  try {
    const { content, meta } = taskResult(await s.drain("go"));
    assert.deepEqual(
      (meta.fleet as { state: string }[]).map((f) => f.state),
      ["failed", "skipped", "skipped", "done", "done", "failed", "skipped"],
    );
    assert.match(content, /\[task y\] Skipped: depends on "x" \(failed\)\./);
    assert.match(content, /\[task b\] Skipped: depends on "a" \(failed\)\./);
    assert.match(content, /\[task c\] Skipped: depends on "b" \(skipped\)\./);
    assert.match(content, /echo done/);
    const words = fake.requests.filter(isChild).map((r) => firstUser(r).match(/(\w+): go/)?.[1]);
    assert.deepEqual([...new Set(words)].sort(), ["delta", "echo", "xray"]);
  } finally {
    await s.close();
    await fake.close();
  }
});

Deno.test("fail_fast stops starting new items and lets a running writer finish", async () => {
  const fake = await startFakeLlm({
    script: script(
      delegate({
        fail_fast: true,
        tasks: [
          { id: "slow", prompt: "slowpoke: write", write_paths: ["slow"] },
          { id: "bad", prompt: "broken: go", profile: "nobody" },
          { id: "after", prompt: "aftermath: go", read_only: true, depends_on: ["slow"] },
        ],
      }),
      {
        slowpoke: steps(
          {
            toolCalls: [fakeToolCall("write_file", { path: "slow/out.txt", content: "kept\n" })],
            delayMs: 150,
          },
          complete("complete", [{ criterion: "written", kind: "diff", paths: ["slow/out.txt"] }]),
          { text: "slow done" },
        ),
        aftermath: steps({ text: "should not run" }),
      },
    ),
  });
  const s = await openSession(fake, { "slow/.keep": "" });
  try {
    const { content, meta } = taskResult(await s.drain("go"));
    assert.deepEqual(
      (meta.fleet as { item: string; state: string; reason?: string }[]).map((f) =>
        `${f.item}:${f.state}`
      ),
      ["slow:done", "bad:failed", "after:skipped"],
    );
    assert.match(content, /\[task after\] Skipped: fail_fast: "bad" failed\./);
    assert.equal(await Deno.readTextFile(join(s.repo, "slow/out.txt")), "kept\n");
    assert.ok(!fake.requests.some((r) => firstUser(r).includes("aftermath")));
  } finally {
    await s.close();
    await fake.close();
  }
});
