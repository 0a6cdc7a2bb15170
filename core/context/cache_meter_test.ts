import assert from "node:assert/strict";
import type { Message, ProviderRequest, ToolSchema } from "../../providers/types.ts";
import { OpenAiProvider } from "../../providers/openai/provider.ts";
import { buildRequestBody } from "../../providers/openai/request.ts";
import { CacheMeter, canonicalBody, sharedPrefix } from "./cache_meter.ts";
import type { CompactionReport } from "./manager.ts";

const encoder = new TextEncoder();

function tool(name: string, description = `${name} does things`): ToolSchema {
  return { name, description, parameters: { type: "object", properties: {} } };
}

const TOOLS: readonly ToolSchema[] = [tool("bash"), tool("mcp__github__search"), tool("read_file")];

function conversation(rounds: number): Message[] {
  const out: Message[] = [{ role: "user", content: "read the files" }];
  for (let i = 0; i < rounds; i++) {
    out.push({
      role: "assistant",
      content: "",
      toolCalls: [{ id: `c${i}`, name: "read_file", arguments: `{"path":"f${i}"}` }],
    });
    out.push({ role: "tool", toolCallId: `c${i}`, name: "read_file", content: `content ${i} ✓` });
  }
  return out;
}

function request(messages: readonly Message[], over: Partial<ProviderRequest> = {}) {
  return {
    model: "m1",
    system: "You are terse.",
    messages,
    tools: TOOLS,
    ...over,
  } satisfies ProviderRequest;
}

function report(phase: CompactionReport["phase"]): CompactionReport {
  return { phase, cause: "pressure", generation: 1, beforeTokens: 100, afterTokens: 50 };
}

/** A meter that has seen `first`, then observes `second`. */
function pair(
  first: ProviderRequest,
  second: ProviderRequest,
  opts: Parameters<CacheMeter["observe"]>[1] = {},
  meter = new CacheMeter(),
) {
  meter.observe(first, { turn: 1 });
  return { meter, seen: meter.observe(second, { turn: 2, ...opts }) };
}

function bytes(req: ProviderRequest): Uint8Array {
  return encoder.encode(canonicalBody(req));
}

Deno.test("a request that only appends messages is no break, and its cached bytes are the shared prefix", () => {
  const a = request(conversation(2));
  const b = request(conversation(3));
  const { meter, seen } = pair(a, b);
  assert.equal(seen.break, undefined);
  assert.equal(seen.cachedBytes, sharedPrefix(bytes(a), bytes(b)));
  assert.equal(seen.bytes, bytes(b).byteLength);
  // Everything up to the last old message is shared (the bytes after it close the array).
  const body = canonicalBody(a);
  const end = encoder.encode(body.slice(0, body.lastIndexOf("]"))).byteLength;
  assert.equal(seen.cachedBytes, end);
  assert.deepEqual(meter.totals, {
    requests: 2,
    bytes: bytes(a).byteLength + bytes(b).byteLength,
    cachedBytes: end,
    breaks: 0,
    unplanned: 0,
  });
  assert.equal(meter.share, end / meter.totals.bytes);
});

Deno.test("offsets count UTF-8 bytes, not UTF-16 units", () => {
  const a = request([{ role: "user", content: "日本語 ✓ a" }]);
  const b = request([{ role: "user", content: "日本語 ✓ b" }]);
  const { seen } = pair(a, b);
  const prefix = canonicalBody(a).slice(0, canonicalBody(a).indexOf(' a"'));
  assert.equal(seen.break?.offset, encoder.encode(`${prefix} `).byteLength);
  assert.equal(seen.break?.bytesInvalidated, bytes(a).byteLength - seen.break!.offset);
});

Deno.test("a model change is an unplanned break named model", () => {
  const messages = conversation(1);
  const { seen } = pair(request(messages), request(messages, { model: "m2" }));
  assert.equal(seen.break?.cause, "model");
  assert.equal(seen.break?.planned, false);
  assert.match(seen.break!.detail, /m1 → m2/);
  assert.equal(seen.break?.turn, 2);
});

Deno.test("a temperature change is a params break; a reasoning effort change a thinking break", () => {
  const messages = conversation(1);
  const t = pair(request(messages), request(messages, { temperature: 0.5 })).seen;
  assert.equal(t.break?.cause, "params");
  assert.match(t.break!.detail, /temperature unset → 0.5/);
  const e = pair(
    request(messages, { reasoningEffort: "high" }),
    request(messages, { reasoningEffort: "low" }),
  ).seen;
  assert.equal(e.break?.cause, "thinking");
  assert.match(e.break!.detail, /"high" → "low"/);
});

Deno.test("a changed output cap alone is no break: no cache keys on it", () => {
  const messages = conversation(1);
  const { seen } = pair(
    request(messages, { maxOutputTokens: 8000 }),
    request(messages, { maxOutputTokens: 6000 }),
  );
  assert.equal(seen.break, undefined);
});

Deno.test("a changed cache-keyed parameter the provider reports is a thinking break", () => {
  const messages = conversation(1);
  const meter = new CacheMeter({
    cacheKey: (r) => `thinking:{"budget_tokens":${Math.floor((r.maxOutputTokens ?? 0) / 2)}}`,
  });
  const { seen } = pair(
    request(messages, { maxOutputTokens: 8000 }),
    request(conversation(2), { maxOutputTokens: 6000 }),
    {},
    meter,
  );
  assert.equal(seen.break?.cause, "thinking");
  assert.match(seen.break!.detail, /4000.*3000/);
  // The same key again is no break.
  const again = meter.observe(request(conversation(3), { maxOutputTokens: 6000 }), { turn: 3 });
  assert.equal(again.break, undefined);
});

Deno.test("a tools change names the MCP server and the tools", () => {
  const messages = conversation(1);
  const fewer = TOOLS.filter((t) => t.name !== "mcp__github__search");
  const removed = pair(request(messages), request(messages, { tools: fewer })).seen;
  assert.equal(removed.break?.cause, "tools");
  assert.equal(removed.break?.planned, false);
  assert.deepEqual(removed.break?.tools, ["mcp__github__search"]);
  assert.match(removed.break!.detail, /MCP server github: removed mcp__github__search/);
  // The tools come before the system prompt and the messages: the offset is inside them.
  const before = canonicalBody(request(messages));
  assert.ok(removed.break!.offset < before.indexOf('"system"'));
  assert.ok(removed.break!.offset > before.indexOf('"tools"'));

  const changed = TOOLS.map((t) => t.name === "bash" ? tool("bash", "runs commands") : t);
  const builtin = pair(request(messages), request(messages, { tools: changed })).seen;
  assert.equal(builtin.break?.cause, "tools");
  assert.match(builtin.break!.detail, /^built-in tools: changed bash$/);

  // Equal content in a new array is no change.
  const copy = pair(request(messages), request(messages, { tools: TOOLS.map((t) => ({ ...t })) }));
  assert.equal(copy.seen.break, undefined);
});

Deno.test("a system prompt change is a system break", () => {
  const messages = conversation(1);
  const { seen } = pair(request(messages), request(messages, { system: "You are verbose." }));
  assert.equal(seen.break?.cause, "system");
  assert.equal(seen.break?.planned, false);
});

Deno.test("a message rewritten with a prune report is a planned prune at that message", () => {
  const before = conversation(3);
  const after = before.map((m, i) => i === 4 ? { ...m, content: "pruned" } : m);
  after.push(...conversation(4).slice(before.length));
  const { seen } = pair(request(before), request(after), { reports: [report("pruned")] });
  assert.equal(seen.break?.cause, "prune");
  assert.equal(seen.break?.planned, true);
  assert.equal(seen.break?.message, 4);
  const prefix = canonicalBody(request(before));
  const at = prefix.indexOf('"content 1 ✓"');
  assert.equal(seen.break?.offset, encoder.encode(prefix.slice(0, at + 1)).byteLength);
});

Deno.test("truncation and summary reports name their step; the summary wins over a prune", () => {
  const before = conversation(3);
  const blanked = before.map((m, i) => i === 2 ? { ...m, content: "[blank]" } : m);
  const t = pair(request(before), request(blanked), { reports: [report("truncated")] }).seen;
  assert.equal(t.break?.cause, "truncation");
  assert.equal(t.break?.planned, true);
  const checkpoint: Message[] = [{ role: "user", content: "<checkpoint>…</checkpoint>" }];
  const s = pair(request(before), request(checkpoint), {
    reports: [report("pruned"), report("summarized")],
  }).seen;
  assert.equal(s.break?.cause, "summary");
  assert.equal(s.break?.message, 0);
});

Deno.test("a message rewritten with no maintenance report is an unplanned history break", () => {
  const before = conversation(2);
  const after = before.map((m, i) => i === 1 ? { ...m, content: "edited" } : m);
  const { meter, seen } = pair(request(before), request(after), { reports: [] });
  assert.equal(seen.break?.cause, "history");
  assert.equal(seen.break?.planned, false);
  assert.equal(seen.break?.message, 1);
  assert.equal(meter.totals.unplanned, 1);
  assert.equal(meter.lastBreak, seen.break);
  // Dropped messages count as rewritten too.
  const shorter = pair(request(before), request(before.slice(0, 2))).seen;
  assert.equal(shorter.break?.cause, "history");
  assert.match(shorter.break!.detail, /message 2 removed/);
});

Deno.test("a summary request and the request returning from it are planned; later edits are not", () => {
  const live = conversation(3);
  const meter = new CacheMeter();
  meter.observe(request(live), { turn: 4 });
  const summaryRequest = request([...live.slice(0, 3), { role: "user", content: "summarize" }]);
  const s = meter.observe(summaryRequest, { planned: "summary" });
  assert.equal(s.break?.cause, "summary");
  assert.equal(s.break?.planned, true);
  assert.equal(s.break?.purpose, "summary");
  assert.equal(s.break?.message, 3);
  // The summary failed: the conversation goes on unsummarized, and no report says so.
  const back = meter.observe(request(conversation(4)), { turn: 5 });
  assert.equal(back.break?.cause, "summary");
  assert.equal(back.break?.planned, true);
  const edited = conversation(5).map((m, i) => i === 1 ? { ...m, content: "x" } : m);
  const later = meter.observe(request(edited), { turn: 6 });
  assert.equal(later.break?.planned, false);
  // The summary break had no turn: the agent's turn fills it in when it is taken.
  assert.deepEqual(meter.take(5).map((b) => [b.turn, b.cause]), [
    [5, "summary"],
    [5, "summary"],
    [6, "history"],
  ]);
  assert.deepEqual(meter.take(7), []);
});

Deno.test("the causes are checked in wire order: the first change is the cause", () => {
  const before = conversation(2);
  const after = before.map((m, i) => i === 1 ? { ...m, content: "edited" } : m);
  const { seen } = pair(request(before), request(after, { system: "other", model: "m2" }));
  assert.equal(seen.break?.cause, "model");
  const system = pair(request(before), request(after, { system: "other" })).seen;
  assert.equal(system.break?.cause, "system");
});

Deno.test("the meter measures a provider's wire body when it exposes one", () => {
  const provider = new OpenAiProvider({
    name: "p",
    model: "m1",
    requestUrl: "http://127.0.0.1:9/v1/chat/completions",
    apiKey: "k",
  });
  const meter = CacheMeter.for(provider);
  const a = request(conversation(1));
  const b = request(conversation(2));
  const first = meter.observe(a, { turn: 1 });
  const second = meter.observe(b, { turn: 2 });
  const wireA = encoder.encode(buildRequestBody(a, {}));
  const wireB = encoder.encode(buildRequestBody(b, {}));
  assert.equal(first.bytes, wireA.byteLength);
  assert.equal(second.cachedBytes, sharedPrefix(wireA, wireB));
  assert.notEqual(second.bytes, bytes(b).byteLength);
});

Deno.test("a serializer that throws falls back to the canonical body instead of failing the request", () => {
  const meter = new CacheMeter({
    serialize: () => {
      throw new RangeError("max_tokens must be a positive integer");
    },
  });
  const seen = meter.observe(request(conversation(1)));
  assert.equal(seen.bytes, bytes(request(conversation(1))).byteLength);
});

Deno.test("the shared prefix is exact at every byte position, aligned or not", () => {
  const base = encoder.encode("abcdefghijklmnopqrstuvwxyz0123456789");
  for (let at = 0; at <= base.length; at++) {
    const other = base.slice();
    if (at < other.length) other[at] = 0x21;
    assert.equal(sharedPrefix(base, other), at);
    // A view that starts off a word boundary takes the byte path.
    const shifted = new Uint8Array(other.length + 1);
    shifted.set(other, 1);
    assert.equal(sharedPrefix(base, shifted.subarray(1)), at);
  }
  assert.equal(sharedPrefix(base, base.subarray(0, 5)), 5);
});

Deno.test("a message that differs only in its local raw content is kept; a changed tool call is not", () => {
  const before = conversation(2);
  const raw = before.map((m, i) => i === 2 ? { ...m, rawContent: "the full output" } : m);
  assert.equal(pair(request(before), request(raw)).seen.break, undefined);
  const args = before.map((m, i) =>
    i === 1 ? { ...m, toolCalls: [{ ...m.toolCalls![0], arguments: '{"path":"other"}' }] } : m
  );
  assert.equal(pair(request(before), request(args)).seen.break?.message, 1);
});

Deno.test("switching between a provider that encodes into the buffer and one that does not keeps the shares exact", () => {
  const openai = new OpenAiProvider({
    name: "p",
    model: "m1",
    requestUrl: "http://127.0.0.1:9/v1/chat/completions",
    apiKey: "k",
  });
  // The same wire through `body` only: the meter serializes it as a string.
  const stringOnly = {
    name: "p",
    stream: openai.stream.bind(openai),
    body: openai.body.bind(openai),
  };
  const meter = CacheMeter.for(openai);
  const reqs = [1, 2, 3, 4, 5].map((n) => request(conversation(n)));
  const wire = reqs.map((r) => encoder.encode(buildRequestBody(r, {})));
  const order = [openai, stringOnly, openai, openai, stringOnly];
  reqs.forEach((r, i) => {
    meter.use(order[i]);
    const seen = meter.observe(r, { turn: i });
    assert.equal(seen.bytes, wire[i].byteLength);
    assert.equal(
      seen.cachedBytes,
      i === 0 ? 0 : sharedPrefix(wire[i - 1], wire[i]),
      `request ${i}`,
    );
    assert.equal(seen.break, undefined);
  });
});
