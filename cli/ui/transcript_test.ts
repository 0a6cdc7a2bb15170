import assert from "node:assert/strict";
import type { AgentEvent } from "../../core/agent/events.ts";
import { renderMarkdown } from "./markdown.ts";
import { makeStyles } from "./style.ts";
import { Transcript } from "./transcript.ts";

const CALL = { id: "c1", name: "bash", arguments: '{"command":"ls"}' };

function kinds(t: Transcript): string[] {
  return t.items.map((i) => i.kind);
}

Deno.test("streamed text commits finished blocks and keeps the growing one live", () => {
  const t = new Transcript();
  t.apply({ type: "text", text: "First para" }, 0);
  assert.equal(t.items.length, 0);
  assert.equal(t.live.text, "First para");
  t.apply({ type: "text", text: "graph.\n\nSecond" }, 1);
  const first = t.items[0];
  assert.ok(first.kind === "assistant");
  assert.equal(first.markdown, "First paragraph.\n\n");
  assert.equal(t.live.text, "Second");
  t.apply({
    type: "done",
    status: "completed",
    text: "",
    turns: 1,
    toolCalls: 0,
    usage: {
      promptTokens: 0,
      completionTokens: 0,
      cacheHitTokens: 0,
      cacheMissTokens: 0,
    },
  }, 2);
  assert.deepEqual(kinds(t), ["assistant", "assistant"]);
  assert.equal(t.live.text, "");
});

Deno.test("reasoning becomes one item with its duration when the answer or a tool starts", () => {
  const t = new Transcript();
  t.apply({ type: "reasoning", text: "think " }, 100);
  t.apply({ type: "reasoning", text: "more" }, 150);
  assert.equal(t.live.reasoning, "think more");
  t.apply({ type: "tool_start", call: CALL }, 1100);
  assert.deepEqual(t.items[0], {
    id: 1,
    kind: "reasoning",
    text: "think more",
    durationMs: 1000,
    expanded: false,
  });
  assert.equal(t.live.tools.length, 1);
  t.apply({ type: "tool_progress", callId: "c1", message: "running" }, 1200);
  assert.equal(t.live.tools[0].progress, "running");
  t.apply({ type: "tool_end", call: CALL, result: { content: "a\nb" }, durationMs: 40 }, 1300);
  assert.equal(t.live.tools.length, 0);
  assert.deepEqual(kinds(t), ["reasoning", "tool"]);
});

Deno.test("Ctrl-O expands reasoning and reprints the latest one in full", () => {
  const t = new Transcript();
  t.apply({ type: "reasoning", text: "why" }, 0);
  t.apply({ type: "text", text: "answer" }, 10);
  t.toggleReasoning();
  assert.equal(t.expandReasoning, true);
  const last = t.items.at(-1)!;
  assert.ok(last.kind === "reasoning" && last.expanded && last.text === "why");
  t.toggleReasoning();
  assert.equal(t.expandReasoning, false);
  assert.equal(t.items.length, 2);
});

Deno.test("denials, approvals, notices, compaction and unusual endings become items", () => {
  const t = new Transcript();
  const events: AgentEvent[] = [
    {
      type: "permission",
      callId: "c1",
      tool: "bash",
      decision: "deny",
      allowed: false,
      rule: "Bash(rm*)",
      preset: "ask",
    },
    {
      type: "approval_request",
      request: { id: "a1", kind: "tool", tool: "bash", summary: "bash: npm test" },
    },
    { type: "approval_answer", id: "a1", choice: "once" },
    { type: "notice", level: "warning", message: "watch out" },
    {
      type: "compaction",
      report: {
        phase: "summarized",
        cause: "pressure",
        generation: 1,
        beforeTokens: 90_000,
        afterTokens: 20_000,
      },
    },
    {
      type: "done",
      status: "error",
      text: "",
      turns: 1,
      toolCalls: 0,
      usage: { promptTokens: 0, completionTokens: 0, cacheHitTokens: 0, cacheMissTokens: 0 },
      error: { code: "provider_auth", message: "401" },
    },
  ];
  for (const e of events) t.apply(e, 0);
  assert.deepEqual(t.items.map(({ id: _id, ...rest }) => rest), [
    { kind: "notice", level: "warning", text: "Denied bash by Bash(rm*)" },
    { kind: "approval", summary: "bash: npm test", choice: "once" },
    { kind: "notice", level: "warning", text: "watch out" },
    { kind: "notice", level: "info", text: "Context summarized: 90k → 20k tokens (pressure)" },
    { kind: "turn_end", status: "error", detail: "401" },
  ]);
  t.clear();
  assert.equal(t.items.length, 0);
});

Deno.test("a tool card says which rule or mode let its call run", () => {
  const t = new Transcript();
  const call = { id: "c1", name: "bash", arguments: '{"command":"npm test"}' };
  t.apply({ type: "tool_start", call }, 0);
  t.apply({
    type: "permission",
    callId: "c1",
    tool: "bash",
    decision: "allow",
    allowed: true,
    rule: "Bash(npm test:*)",
    preset: "ask",
  }, 1);
  t.apply({ type: "tool_end", call, result: { content: "ok" }, durationMs: 5 }, 2);
  const item = t.items.findLast((i) => i.kind === "tool");
  assert.equal(item?.kind === "tool" && item.permission, "allowed by Bash(npm test:*)");
});

Deno.test("a long streamed answer commits blocks that render as the whole answer does", () => {
  const answer = [
    "# 标题 Heading",
    Array.from({ length: 300 }, (_, i) => `- item ${i} 中文`).join("\n"),
    "```ts\n" + Array.from({ length: 400 }, (_, i) => `const x${i} = ${i};`).join("\n") +
    "\n```",
    Array.from({ length: 300 }, (_, i) => `line ${i} of a paragraph`).join("\n"),
    "| a | b |\n|---|---|\n" + Array.from({ length: 50 }, (_, i) => `| ${i} | 值 |`).join("\n"),
    "1. one\n   - nested\n2. two",
  ].join("\n\n");
  for (const size of [5, 64, 999]) {
    const t = new Transcript();
    for (let at = 0; at < answer.length; at += size) {
      t.apply({ type: "text", text: answer.slice(at, at + size) }, 0);
    }
    const streamed = t.items.length;
    t.apply({ type: "done", status: "completed" } as AgentEvent, 0);
    const parts = t.items.map((item) => item.kind === "assistant" ? item.markdown : "");
    assert.equal(parts.join(""), answer);
    assert.ok(streamed >= (size < 100 ? 5 : 3), `size ${size}: ${streamed} committed early`);
    assert.equal(
      parts.map((p) => renderMarkdown(p, { width: 50, styles: makeStyles(false) })).join("\n\n"),
      renderMarkdown(answer, { width: 50, styles: makeStyles(false) }),
    );
  }
});

Deno.test("text after a tool call starts a new answer, not the end of the committed one", () => {
  const t = new Transcript();
  const long = Array.from({ length: 400 }, (_, i) => `- item ${i}`).join("\n");
  t.apply({ type: "text", text: long }, 0);
  t.apply({ type: "tool_start", call: CALL }, 0);
  t.apply({ type: "text", text: "after" }, 0);
  assert.equal(t.live.text, "after");
  t.apply({ type: "done", status: "completed" } as AgentEvent, 0);
  assert.deepEqual(
    t.items.filter((i) => i.kind === "assistant").map((i) => i.kind === "assistant" && i.markdown),
    [long, "after"],
  );
});

Deno.test("a planner route shows a notice, the planner's prose folds, the plan renders", () => {
  const t = new Transcript();
  t.apply({ type: "route", route: "executor", reason: "default" }, 0);
  assert.equal(t.items.length, 0, "the default route is not announced");
  t.apply({ type: "route", route: "plan_first", reason: "trailing_marker" }, 0);
  t.apply({ type: "text", text: "Let me look around.", agent: "planner" }, 1);
  assert.equal(t.live.text, "", "planner prose is not the answer");
  assert.equal(t.live.reasoning, "Let me look around.");
  const plan = { id: "plan-0123456789", title: "Fix login", text: "## Fix login\n\n1. Trim" };
  t.apply({ type: "plan", status: "submitted", plan }, 2);
  t.apply({ type: "plan", status: "approved", plan }, 3);
  assert.deepEqual(kinds(t), ["notice", "reasoning", "assistant", "notice"]);
  const shown = t.items[2];
  assert.ok(shown.kind === "assistant" && shown.markdown.includes("## Fix login"));
  const last = t.items[3];
  assert.ok(last.kind === "notice" && /approved/.test(last.text));
});

Deno.test("a running task card keeps each child's latest activity and tokens apart", () => {
  const t = new Transcript();
  const task = { id: "t1", name: "task", arguments: "{}" };
  t.apply({ type: "tool_start", call: task }, 0);
  const child = (id: string, event: AgentEvent) =>
    t.apply({ type: "tool_progress", callId: "t1", message: "…", detail: { child: id, event } }, 1);
  const read = { id: "r1", name: "read_file", arguments: "{}" };
  const usage = {
    promptTokens: 1200,
    completionTokens: 30,
    cacheHitTokens: 0,
    cacheMissTokens: 1200,
  };
  child("aaaaaaaa-1", { type: "tool_start", call: read });
  child("bbbbbbbb-2", {
    type: "usage",
    turn: 1,
    usage,
    cacheHitRatio: 0,
    totals: { ...usage },
  });
  child("aaaaaaaa-1", { type: "tool_end", call: read, result: { content: "x" }, durationMs: 1 });
  assert.deepEqual(t.live.tools[0].children, [
    {
      id: "aaaaaaaa-1",
      activity: "read_file ✓",
      tokens: 0,
      tools: [{ callId: "r1", name: "read_file", state: "ok" }],
      calls: 1,
      failed: 0,
    },
    { id: "bbbbbbbb-2", activity: "starting", tokens: 1230, tools: [], calls: 0, failed: 0 },
  ]);
  // Progress without a child event leaves the children as they are.
  t.apply({ type: "tool_progress", callId: "t1", message: "plain" }, 2);
  assert.equal(t.live.tools[0].children?.length, 2);
  assert.equal(t.live.tools[0].progress, "plain");
  // Ctrl-T opens the first card; the finished card keeps the children; the next turn's
  // cards start closed.
  assert.equal(t.toggleCards(), true);
  assert.deepEqual(t.live.open, { kind: "one", id: "aaaaaaaa-1" });
  t.apply({ type: "tool_end", call: task, result: { content: "done" }, durationMs: 5 }, 3);
  const card = t.items.at(-1)!;
  assert.ok(card.kind === "tool" && card.cards?.children?.length === 2);
  assert.equal(t.toggleCards(), false, "no running call has cards");
  t.flush(4);
  assert.equal(t.live.open, undefined);
});
