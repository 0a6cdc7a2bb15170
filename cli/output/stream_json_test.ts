import assert from "node:assert/strict";
import type { AgentEvent, UsageTotals } from "../../core/agent/events.ts";
import type { Usage } from "../../providers/types.ts";
import { claudeUsage, resultSubtype, StreamJsonWriter } from "./stream_json.ts";

type Line = Record<string, unknown> & { type: string; subtype?: string };

const INFO = {
  sessionId: "s-1",
  model: "fake/fake-model",
  tools: ["bash", "read_file"],
  cwd: "/work/repo",
  permissionMode: "auto",
};

function writer(): { w: StreamJsonWriter; lines: () => Line[] } {
  const out: string[] = [];
  let clock = 0;
  let id = 0;
  const w = new StreamJsonWriter({
    write: (line) => out.push(line),
    info: INFO,
    now: () => (clock += 10),
    uuid: () => `00000000-0000-0000-0000-${String(++id).padStart(12, "0")}`,
  });
  return {
    w,
    lines: () =>
      out.map((l) => {
        assert.ok(l.endsWith("\n") && !l.slice(0, -1).includes("\n"), `not one line: ${l}`);
        return JSON.parse(l);
      }),
  };
}

function usage(prompt: number, hit: number, completion = 5): Usage {
  return {
    promptTokens: prompt,
    completionTokens: completion,
    cacheHitTokens: hit,
    cacheMissTokens: prompt - hit,
  };
}

function usageEvent(turn: number, u: Usage, totals: UsageTotals): AgentEvent {
  return {
    type: "usage",
    turn,
    usage: u,
    cacheHitRatio: u.cacheHitTokens / u.promptTokens,
    totals,
  };
}

function totals(extra: Partial<UsageTotals> = {}): UsageTotals {
  return {
    promptTokens: 300,
    completionTokens: 10,
    cacheHitTokens: 100,
    cacheMissTokens: 200,
    ...extra,
  };
}

const call = { id: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' };

/** A turn that reasons, says something, calls one tool, then answers. */
const TOOL_TURN: AgentEvent[] = [
  { type: "turn_start", turn: 1 },
  { type: "request_start", turn: 1, model: "fake-model" },
  { type: "reasoning", text: "Look at " },
  { type: "reasoning", text: "the file." },
  { type: "text", text: "Reading " },
  { type: "text", text: "a.txt." },
  usageEvent(1, usage(100, 0), totals()),
  { type: "tool_start", call },
  {
    type: "permission",
    callId: "call_1",
    tool: "read_file",
    decision: "allow",
    allowed: true,
    rule: "read-only tool",
    preset: "auto",
  },
  { type: "tool_end", call, result: { content: "hello" }, durationMs: 3 },
  { type: "turn_start", turn: 2 },
  { type: "request_start", turn: 2, model: "fake-model" },
  { type: "text", text: "It says hello." },
  usageEvent(2, usage(200, 100), totals()),
  {
    type: "done",
    status: "completed",
    text: "It says hello.",
    turns: 2,
    toolCalls: 1,
    usage: totals({ cost: 0.0123456789, currency: "USD" }),
  },
];

Deno.test("a tool-using turn becomes init, assistant blocks, a tool result and a result", () => {
  const { w, lines } = writer();
  w.start();
  w.beginTurn();
  for (const event of TOOL_TURN) w.event(event);
  const got = lines();
  assert.deepEqual(got.map((l) => `${l.type}${l.subtype ? `/${l.subtype}` : ""}`), [
    "system/init",
    "assistant",
    "assistant",
    "assistant",
    "system/reasonix_permission",
    "user",
    "assistant",
    "result/success",
  ]);
  for (const line of got) assert.equal(line.session_id, "s-1");
  assert.equal(new Set(got.map((l) => l.uuid)).size, got.length, "every line has its own uuid");

  assert.deepEqual(
    { ...got[0], uuid: undefined },
    {
      type: "system",
      subtype: "init",
      cwd: "/work/repo",
      tools: ["bash", "read_file"],
      mcp_servers: [],
      model: "fake/fake-model",
      permissionMode: "auto",
      apiKeySource: "none",
      session_id: "s-1",
      uuid: undefined,
    },
  );

  const blocks = got.filter((l) => l.type === "assistant").map((l) =>
    (l.message as { content: unknown[] }).content
  );
  assert.deepEqual(blocks, [
    [{ type: "thinking", thinking: "Look at the file.", signature: "" }],
    [{ type: "text", text: "Reading a.txt." }],
    [{ type: "tool_use", id: "call_1", name: "read_file", input: { path: "a.txt" } }],
    [{ type: "text", text: "It says hello." }],
  ]);
  const messages = got.filter((l) => l.type === "assistant").map((l) =>
    l.message as { id: string; model: string; role: string; usage: unknown }
  );
  // One message id per model request, shared by its blocks.
  assert.equal(messages[0].id, messages[1].id);
  assert.equal(messages[1].id, messages[2].id);
  assert.notEqual(messages[2].id, messages[3].id);
  assert.equal(messages[0].model, "fake-model");
  assert.equal(messages[0].role, "assistant");
  assert.deepEqual(messages[0].usage, {
    input_tokens: 100,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 5,
  });

  assert.deepEqual(got[5].message, {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "call_1", content: "hello", is_error: false }],
  });

  const result = got.at(-1)!;
  assert.equal(result.subtype, "success");
  assert.equal(result.is_error, false);
  assert.equal(result.num_turns, 2);
  assert.equal(result.result, "It says hello.");
  assert.equal(result.total_cost_usd, 0.012346);
  assert.equal(typeof result.duration_ms, "number");
  assert.ok((result.duration_api_ms as number) > 0);
  assert.ok((result.duration_ms as number) >= (result.duration_api_ms as number));
  assert.deepEqual(result.usage, {
    input_tokens: 200,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 100,
    output_tokens: 10,
  });
  assert.deepEqual(result.permission_denials, []);
  assert.equal(result.errors, undefined);
});

Deno.test("a refused call is a denial; a decision repeated by a side channel is written once", () => {
  const { w, lines } = writer();
  const bash = { id: "call_9", name: "bash", arguments: '{"command":"npm test"}' };
  const denied: AgentEvent = {
    type: "permission",
    callId: "call_9",
    tool: "bash",
    decision: "ask",
    allowed: false,
    rule: "ask mode",
    preset: "ask",
    reason: "Not run: needs approval",
  };
  w.beginTurn();
  w.event({ type: "request_start", turn: 1, model: "m" });
  w.event({ type: "tool_start", call: bash });
  w.event(denied);
  w.event(denied);
  w.event({
    type: "tool_end",
    call: bash,
    result: { content: "Not run: needs approval", isError: true },
    durationMs: 1,
  });
  w.event({
    type: "done",
    status: "max_turns",
    text: "",
    turns: 1,
    toolCalls: 1,
    usage: totals({ cost: 2, currency: "CNY" }),
  });
  const got = lines();
  const permissions = got.filter((l) => l.subtype === "reasonix_permission");
  assert.equal(permissions.length, 1);
  assert.deepEqual({ ...permissions[0], uuid: undefined }, {
    type: "system",
    subtype: "reasonix_permission",
    tool_use_id: "call_9",
    tool: "bash",
    decision: "ask",
    allowed: false,
    rule: "ask mode",
    preset: "ask",
    reason: "Not run: needs approval",
    session_id: "s-1",
    uuid: undefined,
  });
  const toolResult = got.find((l) => l.type === "user")!.message as { content: unknown[] };
  assert.equal((toolResult.content[0] as { is_error: boolean }).is_error, true);
  const result = got.at(-1)!;
  assert.equal(result.subtype, "error_max_turns");
  assert.equal(result.is_error, true);
  assert.deepEqual(result.permission_denials, [
    { tool_name: "bash", tool_use_id: "call_9", tool_input: { command: "npm test" } },
  ]);
  // Priced in yuan: no dollar figure is made up; the amount is in the reasonix extras.
  assert.equal(result.total_cost_usd, undefined);
  assert.deepEqual((result.reasonix as { cost: number; currency: string }).currency, "CNY");
  assert.ok(Array.isArray(result.errors) && (result.errors as string[]).length === 1);
});

Deno.test("a request that reads far less from the cache than the prompt before it, with its prefix intact, is a cache miss", () => {
  const { w, lines } = writer();
  const t = totals();
  w.event({ type: "request_start", turn: 1, model: "m" });
  w.event(usageEvent(1, usage(4000, 0), t));
  w.event({ type: "request_start", turn: 2, model: "m" });
  w.event(usageEvent(2, usage(4200, 3990), t)); // extends the cached prefix: fine
  w.event({ type: "request_start", turn: 3, model: "m" });
  w.event(usageEvent(3, usage(4400, 128), t)); // the prefix changed
  w.event({
    type: "compaction",
    report: {
      phase: "summarized",
      cause: "pressure",
      generation: 1,
      beforeTokens: 4400,
      afterTokens: 900,
    },
  });
  w.event({ type: "request_start", turn: 4, model: "m" });
  w.event(usageEvent(4, usage(1000, 0), t)); // after compaction a miss is expected
  const got = lines();
  assert.equal(got.filter((l) => l.subtype === "reasonix_cache_break").length, 0);
  const breaks = got.filter((l) => l.subtype === "reasonix_cache_miss");
  assert.equal(breaks.length, 1);
  assert.deepEqual({ ...breaks[0], uuid: undefined }, {
    type: "system",
    subtype: "reasonix_cache_miss",
    turn: 3,
    expected_cached_tokens: 4200,
    cache_read_input_tokens: 128,
    prompt_tokens: 4400,
    session_id: "s-1",
    uuid: undefined,
  });
  const compaction = got.find((l) => l.subtype === "reasonix_compaction")!;
  assert.equal(compaction.phase, "summarized");
  assert.equal(compaction.pre_tokens, 4400);
  assert.equal(compaction.post_tokens, 900);
});

Deno.test("a meter cache break is a reasonix_cache_break line, explains the miss after it, and is listed in the result", () => {
  const { w, lines } = writer();
  const t = totals({ requestBytes: 30_000, cachedBytes: 12_000 });
  w.beginTurn();
  w.event({ type: "request_start", turn: 1, model: "m" });
  w.event(usageEvent(1, usage(4000, 0), t));
  w.event({
    type: "cache_break",
    cacheBreak: {
      turn: 2,
      cause: "tools",
      planned: false,
      offset: 812,
      bytesInvalidated: 15_188,
      tools: ["mcp__github__search"],
      detail: "tools of MCP server github: removed mcp__github__search",
    },
  });
  w.event({ type: "request_start", turn: 2, model: "m" });
  w.event(usageEvent(2, usage(4200, 200), t));
  w.event({
    type: "done",
    status: "completed",
    text: "ok",
    turns: 2,
    toolCalls: 0,
    usage: t,
  });
  const got = lines();
  assert.equal(got.filter((l) => l.subtype === "reasonix_cache_miss").length, 0);
  const entry = {
    turn: 2,
    cause: "tools",
    planned: false,
    offset: 812,
    bytes_invalidated: 15_188,
    message: null,
    tools: ["mcp__github__search"],
    detail: "tools of MCP server github: removed mcp__github__search",
    purpose: null,
  };
  const line = got.find((l) => l.subtype === "reasonix_cache_break")!;
  assert.deepEqual({ ...line, uuid: undefined }, {
    type: "system",
    subtype: "reasonix_cache_break",
    ...entry,
    session_id: "s-1",
    uuid: undefined,
  });
  const result = got.find((l) => l.type === "result")!.reasonix as Record<string, unknown>;
  assert.deepEqual(result.cache_breaks, [entry]);
  assert.deepEqual(result.cache, {
    request_bytes: 30_000,
    cached_bytes: 12_000,
    prefix_share: 0.4,
  });
});

Deno.test("notices, progress and approvals are reasonix system lines without functions", () => {
  const { w, lines } = writer();
  w.event({ type: "notice", level: "warning", message: "image skipped" });
  w.event({ type: "tool_progress", callId: "call_1", message: "50%" });
  w.event({
    type: "approval_request",
    request: { id: "a1", kind: "tool", tool: "bash", summary: "bash: ls" },
    respond: () => {},
  } as AgentEvent);
  w.event({ type: "approval_answer", id: "a1", choice: "once" });
  assert.deepEqual(lines().map((l) => [l.type, l.subtype]), [
    ["system", "reasonix_notice"],
    ["system", "reasonix_tool_progress"],
    ["system", "reasonix_approval_request"],
    ["system", "reasonix_approval_answer"],
  ]);
  assert.equal(lines()[2].respond, undefined);
});

Deno.test("statuses map to Claude Code's result subtypes and usage excludes cached input", () => {
  assert.equal(resultSubtype("completed"), "success");
  assert.equal(resultSubtype("max_turns"), "error_max_turns");
  assert.equal(resultSubtype("budget_exceeded"), "error_max_budget_usd");
  assert.equal(resultSubtype("error"), "error_during_execution");
  assert.equal(resultSubtype("timeout"), "error_during_execution");
  assert.equal(resultSubtype("cancelled"), "error_during_execution");
  assert.deepEqual(claudeUsage({ promptTokens: 1000, completionTokens: 7, cacheHitTokens: 900 }), {
    input_tokens: 100,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 900,
    output_tokens: 7,
  });
});

Deno.test("a malformed stdin line answers with an error result naming the line", () => {
  const { w, lines } = writer();
  w.inputError({ line: 3, message: "not JSON" });
  const [result] = lines();
  assert.equal(result.type, "result");
  assert.equal(result.subtype, "error_during_execution");
  assert.equal(result.is_error, true);
  assert.equal(result.result, "stdin line 3: not JSON");
  assert.equal(result.session_id, "s-1");
});
