import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../tools/define.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import type { Tool, ToolContext } from "../../tools/types.ts";
import type { Message } from "../../providers/types.ts";
import { ContextOverflowError, ProviderError } from "../../providers/errors.ts";
import {
  ScriptedProvider,
  type ScriptedReply,
  textReply,
  toolReply,
} from "../../tests/support/scripted_provider.ts";
import { Agent, type AgentOptions } from "./agent.ts";
import type { AgentEvent } from "./events.ts";
import { Session } from "./session.ts";
import { MAX_TOOL_CONTENT_BYTES } from "./bound.ts";

const log: string[] = [];

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

const lookup = defineTool({
  name: "lookup",
  description: "Looks up a key.",
  input: z.object({ key: z.string(), delay: z.number().optional() }),
  readOnly: true,
  async run(args, ctx) {
    log.push(`start ${args.key}`);
    await sleep(args.delay ?? 0, ctx.signal);
    log.push(`end ${args.key}`);
    return { content: `value of ${args.key}` };
  },
});

const store = defineTool({
  name: "store",
  description: "Stores a key.",
  input: z.object({ key: z.string(), size: z.number().optional() }),
  readOnly: false,
  async run(args) {
    log.push(`store ${args.key}`);
    await Promise.resolve();
    return { content: args.size ? "x".repeat(args.size) : `stored ${args.key}` };
  },
});

function agentWith(script: ScriptedReply[], extra: Partial<AgentOptions> = {}) {
  log.length = 0;
  const provider = new ScriptedProvider(script);
  const session = new Session("test");
  const tools: Tool[] = [lookup as Tool, store as Tool];
  const context: Omit<ToolContext, "signal" | "progress" | "workspace"> = {
    root: "/nonexistent",
    tempDir: "/nonexistent",
    shell: { launch: () => Promise.reject(new Error("no shell in this test")) },
    settings: { bashTimeoutMs: 1000 },
  };
  const agent = new Agent({
    provider,
    model: "m",
    session,
    registry: new ToolRegistry(tools),
    systemPrompt: "system",
    toolContext: context,
    maxTurns: 10,
    ...extra,
  });
  return { agent, provider, session };
}

async function collect(
  agent: Agent,
  text: string,
  signal = new AbortController().signal,
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of agent.run({ text }, { signal })) events.push(event);
  return events;
}

function done(events: AgentEvent[]): Extract<AgentEvent, { type: "done" }> {
  const last = events.at(-1);
  assert.equal(last?.type, "done");
  return last as Extract<AgentEvent, { type: "done" }>;
}

Deno.test("agent streams text and completes when the model calls no tool", async () => {
  const { agent, session } = agentWith([textReply("hello")]);
  const events = await collect(agent, "hi");
  assert.deepEqual(
    events.filter((e) => e.type === "text").map((e) => (e as { text: string }).text),
    [
      "hello",
    ],
  );
  const end = done(events);
  assert.equal(end.status, "completed");
  assert.equal(end.text, "hello");
  assert.equal(end.turns, 1);
  assert.deepEqual(session.messages.map((m) => m.role), ["user", "assistant"]);
});

Deno.test("agent runs tool calls, appends results and continues", async () => {
  const { agent, session, provider } = agentWith([
    toolReply({ id: "c1", name: "lookup", args: { key: "a" } }),
    textReply("the value is a"),
  ]);
  const end = done(await collect(agent, "what is a?"));
  assert.equal(end.status, "completed");
  assert.equal(end.toolCalls, 1);
  assert.deepEqual(session.messages.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
  assert.equal(session.messages[2].content, "value of a");
  assert.equal(session.messages[2].toolCallId, "c1");
  // The second request extends the first: same leading messages, same objects.
  const [first, second] = provider.requests;
  assert.equal(second.messages.length, first.messages.length + 2);
  first.messages.forEach((m, i) => assert.equal(second.messages[i], m));
  assert.equal(second.tools, first.tools);
});

Deno.test("agent runs read-only calls in parallel and writers serially in order", async () => {
  const { agent, session } = agentWith([
    toolReply(
      { id: "r1", name: "lookup", args: { key: "a", delay: 40 } },
      { id: "r2", name: "lookup", args: { key: "b", delay: 10 } },
      { id: "w1", name: "store", args: { key: "c" } },
      { id: "r3", name: "lookup", args: { key: "d" } },
    ),
    textReply("done"),
  ]);
  done(await collect(agent, "go"));
  assert.deepEqual(log, ["start a", "start b", "end b", "end a", "store c", "start d", "end d"]);
  // Results are appended in the model's order regardless of finishing order.
  assert.deepEqual(
    session.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId),
    ["r1", "r2", "w1", "r3"],
  );
});

Deno.test("agent stops with max_turns when the model keeps calling tools", async () => {
  const { agent } = agentWith([
    toolReply({ id: "1", name: "lookup", args: { key: "a" } }),
    toolReply({ id: "2", name: "lookup", args: { key: "a" } }),
  ], { maxTurns: 2 });
  const end = done(await collect(agent, "loop"));
  assert.equal(end.status, "max_turns");
  assert.equal(end.turns, 2);
});

Deno.test("invalid JSON arguments get an error result that repeats the schema", async () => {
  const { agent, session } = agentWith([
    {
      chunks: [
        { type: "tool_call", call: { id: "c", name: "lookup", arguments: '{"key": "a"' } },
        { type: "done", finishReason: "tool_calls" },
      ],
    },
    textReply("ok"),
  ]);
  done(await collect(agent, "go"));
  const result = session.messages[2];
  assert.equal(result.isError, true);
  assert.match(result.content, /not valid JSON/);
  assert.match(result.content, /"required":\["key"\]/);
});

Deno.test("arguments failing validation get the issues and the schema", async () => {
  const { agent, session } = agentWith([
    toolReply({ id: "c", name: "lookup", args: { key: 5 } }),
    textReply("ok"),
  ]);
  done(await collect(agent, "go"));
  assert.match(session.messages[2].content, /Invalid arguments for lookup:\nkey: /);
  assert.match(session.messages[2].content, /JSON Schema/);
});

Deno.test("an unknown tool gets an error naming the available tools", async () => {
  const { agent, session } = agentWith([
    toolReply({ id: "c", name: "nope", args: {} }),
    textReply("ok"),
  ]);
  done(await collect(agent, "go"));
  assert.equal(session.messages[2].content, 'Unknown tool "nope". Available tools: lookup, store.');
});

Deno.test("oversized tool output is bounded for the model and kept whole locally", async () => {
  const { agent, session } = agentWith([
    toolReply({ id: "c", name: "store", args: { key: "k", size: 100_000 } }),
    textReply("ok"),
  ]);
  done(await collect(agent, "go"));
  const result = session.messages[2];
  assert.ok(new TextEncoder().encode(result.content).length <= MAX_TOOL_CONTENT_BYTES);
  assert.match(result.content, /100000 bytes in total/);
  assert.equal(result.rawContent?.length, 100_000);
});

Deno.test("cancelling during the stream keeps shown text and ends cancelled", async () => {
  const controller = new AbortController();
  const { agent, session } = agentWith([{
    chunks: [{ type: "text", text: "partial" }, { type: "text", text: " more" }],
    delayMs: 30,
  }]);
  const events: AgentEvent[] = [];
  for await (const event of agent.run({ text: "go" }, { signal: controller.signal })) {
    events.push(event);
    if (event.type === "text") controller.abort(new DOMException("stop", "AbortError"));
  }
  assert.equal(done(events).status, "cancelled");
  assert.deepEqual(session.messages.map((m) => [m.role, m.content]).slice(1), [
    ["assistant", "partial"],
  ]);
});

Deno.test("cancelling during tools gives every tool call a result", async () => {
  const controller = new AbortController();
  const { agent, session } = agentWith([
    toolReply(
      { id: "r1", name: "lookup", args: { key: "a", delay: 5_000 } },
      { id: "w1", name: "store", args: { key: "b" } },
    ),
  ]);
  const events: AgentEvent[] = [];
  for await (const event of agent.run({ text: "go" }, { signal: controller.signal })) {
    events.push(event);
    if (event.type === "tool_start") setTimeout(() => controller.abort(), 20);
  }
  assert.equal(done(events).status, "cancelled");
  const results = session.messages.filter((m) => m.role === "tool");
  assert.deepEqual(results.map((m) => m.toolCallId), ["r1", "w1"]);
  assert.ok(results.every((m) => m.isError));
  assert.deepEqual(session.unansweredToolCalls(), []);
  assert.ok(!log.includes("store b"), "the writer after a cancelled batch never ran");
});

Deno.test("a provider error ends the run with its code and message", async () => {
  const { agent } = agentWith([{
    chunks: [],
    error: new ProviderError("provider_auth", "401: invalid api key", { status: 401 }),
  }]);
  const end = done(await collect(agent, "go"));
  assert.equal(end.status, "error");
  assert.deepEqual(end.error, { code: "provider_auth", message: "401: invalid api key" });
});

Deno.test("usage is accumulated and priced per request", async () => {
  const usage = {
    promptTokens: 1000,
    completionTokens: 100,
    cacheHitTokens: 800,
    cacheMissTokens: 200,
  };
  const { agent } = agentWith([
    {
      chunks: [
        { type: "tool_call", call: { id: "c", name: "lookup", arguments: '{"key":"a"}' } },
        { type: "usage", usage },
        { type: "done", finishReason: "tool_calls" },
      ],
    },
    {
      chunks: [{ type: "text", text: "x" }, { type: "usage", usage }, {
        type: "done",
        finishReason: "stop",
      }],
    },
  ], { price: { cache_hit: 0.1, input: 1, output: 2, currency: "USD" } });
  const events = await collect(agent, "go");
  const end = done(events);
  assert.equal(end.usage.promptTokens, 2000);
  assert.equal(end.usage.cacheHitTokens, 1600);
  // Per request: (800*0.1 + 200*1 + 100*2) / 1e6 = 0.00048
  assert.ok(Math.abs(end.usage.cost! - 0.00096) < 1e-12);
  const usages = events.filter((e) => e.type === "usage");
  assert.equal(usages.length, 2);
  assert.equal(usages[0].cacheHitRatio, 0.8);
  assert.equal(usages[0].totals.promptTokens, 1000);
  assert.equal(usages[1].totals.promptTokens, 2000);
  assert.ok(Math.abs(usages[1].totals.cost! - 0.00096) < 1e-12);
});

Deno.test("the output budget sees a prompt estimate and sets maxOutputTokens", async () => {
  const seen: number[] = [];
  const { agent, provider } = agentWith([textReply("ok")], {
    outputBudget: (prompt) => {
      seen.push(prompt);
      return 1234;
    },
  });
  done(await collect(agent, "go"));
  assert.equal(provider.requests[0].maxOutputTokens, 1234);
  assert.ok(seen[0] > 0);
});

Deno.test("identical failing calls get a reminder, then a refusal without running", async () => {
  const failing = () => toolReply({ id: crypto.randomUUID(), name: "lookup", args: { key: 7 } });
  const { agent, session } = agentWith([failing(), failing(), failing(), textReply("giving up")]);
  done(await collect(agent, "go"));
  const results = session.messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.doesNotMatch(results[0], /Reminder/);
  assert.match(results[1], /\[Reminder: 2 identical calls have now failed/);
  assert.match(results[2], /^Refused: lookup was called 2 times with these exact arguments/);
});

Deno.test("a cost budget ends the run cleanly with budget_exceeded", async () => {
  const usage = {
    promptTokens: 1_000_000,
    completionTokens: 0,
    cacheHitTokens: 0,
    cacheMissTokens: 1_000_000,
  };
  const { agent } = agentWith([
    {
      chunks: [
        { type: "tool_call", call: { id: "c", name: "lookup", arguments: '{"key":"a"}' } },
        { type: "usage", usage },
        { type: "done", finishReason: "tool_calls" },
      ],
    },
    textReply("never sent"),
  ], { price: { cache_hit: 0, input: 1, output: 1, currency: "USD" }, budget: { maxCost: 0.5 } });
  const end = done(await collect(agent, "go"));
  assert.equal(end.status, "budget_exceeded");
  assert.match(end.detail!, /spent 1\.0000 USD of its 0\.5 budget \(--max-cost\)/);
  assert.equal(end.turns, 1);
});

Deno.test("requests made to prepare the turn count toward the totals and the budgets", async () => {
  const side = (currency: string) => ({
    purpose: "vision" as const,
    usage: { promptTokens: 600, completionTokens: 400, cacheHitTokens: 0, cacheMissTokens: 600 },
    price: { cache_hit: 0, input: 1, output: 1, currency },
  });
  const price = { cache_hit: 0, input: 1, output: 1, currency: "USD" };
  const turns = {
    build: (input: { text: string }) =>
      Promise.resolve({ content: input.text, sideRequests: [side("USD"), side("CNY")] }),
  };

  const priced = agentWith([textReply("seen")], { price, turns });
  const events = await collect(priced.agent, "look");
  const sides = events.filter((e) => e.type === "usage" && e.purpose === "vision");
  assert.equal(sides.length, 2);
  assert.deepEqual(sides.map((e) => e.type === "usage" && [e.turn, e.cost, e.currency]), [
    [0, 0.001, "USD"],
    [0, undefined, undefined],
  ], "a cost in another currency stays out of the run's total");
  const end = done(events);
  assert.equal(end.status, "completed");
  assert.ok(end.usage.promptTokens >= 1200 && end.usage.completionTokens >= 800);
  assert.equal(end.usage.cost, 0.001 + costOfRequest(events));

  const capped = agentWith([textReply("never sent")], {
    turns,
    budget: { maxTokens: 1500 },
  });
  const stopped = done(await collect(capped.agent, "look"));
  assert.equal(stopped.status, "budget_exceeded");
  assert.equal(stopped.turns, 0);
  assert.equal(capped.provider.requests.length, 0, "the budget was spent before the first request");
});

/** The summed cost of the conversation's own requests (those without a purpose). */
function costOfRequest(events: AgentEvent[]): number {
  return events.reduce(
    (sum, e) => e.type === "usage" && !e.purpose ? sum + (e.cost ?? 0) : sum,
    0,
  );
}

Deno.test("a run that hits its time limit ends with timeout, every call answered", async () => {
  const { agent, session } = agentWith([
    toolReply({ id: "slow", name: "lookup", args: { key: "a", delay: 5_000 } }),
  ]);
  const events: AgentEvent[] = [];
  for await (const e of agent.run({ text: "go" }, { signal: AbortSignal.timeout(50) })) {
    events.push(e);
  }
  const end = done(events);
  assert.equal(end.status, "timeout");
  assert.match(end.detail!, /time limit/);
  assert.deepEqual(session.unansweredToolCalls(), []);
});

Deno.test("a context overflow is rescued once and the request retried", async () => {
  const { ContextManager } = await import("../context/manager.ts");
  const { TokenEstimator } = await import("../context/estimator.ts");
  const provider = new ScriptedProvider([
    {
      chunks: [],
      error: new ContextOverflowError(
        "maximum context length is 100000 tokens; you sent 130000 tokens",
      ),
    },
    textReply("summary of earlier work"),
    textReply("answer after the rescue"),
  ]);
  const session = new Session("s", [
    ...Array.from({ length: 12 }, (_, i): Message[] => [
      { role: "user", content: `old request ${i} ${"x".repeat(2000)}` },
      { role: "assistant", content: `old answer ${i}` },
    ]).flat(),
  ]);
  const registry = new ToolRegistry([lookup as Tool]);
  const context = new ContextManager({
    provider,
    model: "m",
    system: "system",
    tools: registry.schemas(),
    contextWindow: 100_000,
    compactRatio: 0.8,
    estimator: new TokenEstimator(),
  });
  const agent = new Agent({
    provider,
    model: "m",
    session,
    registry,
    systemPrompt: "system",
    toolContext: {
      root: "/",
      tempDir: "/",
      shell: { launch: () => Promise.reject(new Error("no")) },
      settings: { bashTimeoutMs: 1 },
    },
    maxTurns: 3,
    context,
  });
  const events = await collect(agent, "new question");
  const end = done(events);
  assert.equal(end.status, "completed");
  assert.equal(end.text, "answer after the rescue");
  assert.equal(provider.requests.length, 3);
  assert.ok(events.some((e) => e.type === "compaction" && e.report.cause === "overflow"));
  assert.match(provider.requests[2].messages[0].content, /^<checkpoint>\n/);
});
