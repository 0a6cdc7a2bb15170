import assert from "node:assert/strict";
import type { AgentEvent } from "../../core/agent/events.ts";
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
