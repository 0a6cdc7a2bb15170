import assert from "node:assert/strict";
import type { Message, ToolCall } from "../../providers/types.ts";
import {
  callKind,
  planEntries,
  replayUpdates,
  stopReason,
  toolKind,
  toolLocations,
  toolTitle,
} from "./updates.ts";

const call = (name: string, args: unknown, id = "c1"): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});

Deno.test("tool kinds follow what a tool does", () => {
  assert.equal(toolKind("read_file"), "read");
  for (const name of ["ls", "glob", "grep", "history"]) assert.equal(toolKind(name), "search");
  for (const name of ["write_file", "edit_file", "multi_edit"]) {
    assert.equal(toolKind(name), "edit");
  }
  assert.equal(toolKind("move_file"), "move");
  assert.equal(toolKind("bash"), "execute");
  assert.equal(toolKind("mcp__docs__search"), "other");
  assert.equal(
    callKind(call("use_capability", { capability: "exit_plan_mode", arguments: {} })),
    "switch_mode",
  );
  assert.equal(callKind(call("use_capability", { capability: "get_goal" })), "other");
});

Deno.test("titles name the file or the command; locations are absolute", () => {
  assert.equal(toolTitle(call("edit_file", { path: "src/a.ts" })), "Edit src/a.ts");
  assert.equal(toolTitle(call("bash", { command: "npm test\nnpm run lint" })), "`npm test…`");
  assert.equal(toolTitle(call("move_file", { source: "a", destination: "b" })), "Move a → b");
  assert.equal(toolTitle(call("grep", { pattern: "TODO" })), "Search TODO");
  assert.equal(toolTitle(call("read_file", "not an object")), "Read a file");
  assert.deepEqual(toolLocations(call("read_file", { path: "a.ts", offset: 40 }), "/w"), [
    { path: "/w/a.ts", line: 40 },
  ]);
  assert.deepEqual(toolLocations(call("write_file", { path: "/abs/b.ts" }), "/w"), [
    { path: "/abs/b.ts" },
  ]);
  assert.deepEqual(toolLocations(call("move_file", { source: "a", destination: "d/b" }), "/w"), [
    { path: "/w/a" },
    { path: "/w/d/b" },
  ]);
  assert.deepEqual(toolLocations(call("bash", { command: "ls" }), "/w"), []);
});

Deno.test("a plan's list items become entries; a plan without a list is one entry", () => {
  assert.deepEqual(
    planEntries({
      title: "Fix",
      text: "## Fix\n\n1. Read the code\n- [x] Found it\n* Patch it\nDone.",
    }),
    [
      { content: "Read the code", priority: "medium", status: "pending" },
      { content: "Found it", priority: "medium", status: "completed" },
      { content: "Patch it", priority: "medium", status: "pending" },
    ],
  );
  assert.deepEqual(planEntries({ title: "Tidy the docs", text: "Just tidy them." }), [
    { content: "Tidy the docs", priority: "medium", status: "pending" },
  ]);
});

Deno.test("stop reasons", () => {
  assert.equal(stopReason("completed"), "end_turn");
  assert.equal(stopReason("awaiting_approval"), "end_turn");
  assert.equal(stopReason("cancelled"), "cancelled");
  assert.equal(stopReason("max_turns"), "max_turn_requests");
  assert.equal(stopReason("budget_exceeded"), "max_tokens");
});

Deno.test("a stored conversation replays as the user's words, answers and tool calls", () => {
  const messages: Message[] = [
    { role: "user", content: "<environment>\ndate\n</environment>\nlist the files" },
    {
      role: "assistant",
      content: "Looking.",
      reasoning: "ls first",
      toolCalls: [call("ls", {}, "call_ls")],
    },
    { role: "tool", toolCallId: "call_ls", name: "ls", content: "a.txt" },
    { role: "tool", toolCallId: "unknown", name: "ls", content: "orphan" },
    { role: "assistant", content: "One file." },
  ];
  assert.deepEqual(replayUpdates(messages, "/w"), [
    { sessionUpdate: "user_message_chunk", content: { type: "text", text: "list the files" } },
    { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "ls first" } },
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Looking." } },
    {
      sessionUpdate: "tool_call",
      toolCallId: "call_ls",
      title: "List .",
      kind: "search",
      status: "pending",
      locations: [],
      rawInput: {},
    },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "call_ls",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "a.txt" } }],
    },
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "One file." } },
  ]);
});
