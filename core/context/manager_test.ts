import assert from "node:assert/strict";
import type { Message, ToolSchema } from "../../providers/types.ts";
import { ContextOverflowError, ProviderError } from "../../providers/errors.ts";
import {
  ScriptedProvider,
  type ScriptedReply,
  textReply,
} from "../../tests/support/scripted_provider.ts";
import type { MaintenanceFailure, ProjectionRecord } from "../store/transcript.ts";
import { TokenEstimator } from "./estimator.ts";
import { CompactionRequiredError, ContextManager, type ContextManagerOptions } from "./manager.ts";
import { BLANKED_RESULT } from "./projection.ts";
import { PRUNE_MARKER } from "./prune.ts";
import { COMPACTION_INSTRUCTION, compactionInstruction, SUMMARY_MAX_TOKENS } from "./summary.ts";

const TOOLS: readonly ToolSchema[] = Object.freeze([
  { name: "read_file", description: "Reads.", parameters: { type: "object" } },
]);

const signal = new AbortController().signal;

/** A user turn followed by `rounds` tool rounds of `size` characters each. */
function conversation(turns: number, rounds: number, size: number): Message[] {
  const out: Message[] = [];
  let id = 0;
  for (let t = 0; t < turns; t++) {
    out.push({ role: "user", content: `request ${t} ${"u".repeat(40)}` });
    for (let r = 0; r < rounds; r++) {
      const callId = `c${id++}`;
      out.push({
        role: "assistant",
        content: `step ${t}.${r}`,
        toolCalls: [{ id: callId, name: "read_file", arguments: '{"path":"a"}' }],
      });
      out.push({ role: "tool", toolCallId: callId, name: "read_file", content: "r".repeat(size) });
    }
    out.push({ role: "assistant", content: `answer ${t}` });
  }
  return out;
}

function manager(script: ScriptedReply[], extra: Partial<ContextManagerOptions> = {}) {
  const provider = new ScriptedProvider(script);
  const projections: ProjectionRecord[] = [];
  const failures: MaintenanceFailure[] = [];
  const cm = new ContextManager({
    provider,
    model: "m",
    system: "system prompt",
    tools: TOOLS,
    contextWindow: 20_000,
    compactRatio: 0.8,
    estimator: new TokenEstimator(),
    persist: { projection: (p) => projections.push(p), failure: (f) => failures.push(f) },
    ...extra,
  });
  return { cm, provider, projections, failures };
}

Deno.test("below the trigger the view is the canonical history and nothing is written", async () => {
  const { cm, provider, projections } = manager([]);
  const canonical = conversation(2, 1, 100);
  const prepared = await cm.prepare(canonical, { signal });
  assert.equal(cm.triggerTokens, 16_000);
  prepared.messages.forEach((m, i) => assert.equal(m, canonical[i]));
  assert.equal(provider.requests.length, 0);
  assert.equal(projections.length, 0);
  assert.deepEqual(prepared.reports, []);
});

Deno.test("crossing the trigger prunes long tool results first, without a model call", async () => {
  const { cm, provider, projections } = manager([]);
  const canonical = [...conversation(1, 2, 9000), ...conversation(10, 1, 4000)];
  const prepared = await cm.prepare(canonical, { signal });
  assert.equal(provider.requests.length, 0);
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["pruned"]);
  assert.deepEqual(projections.at(-1)?.pruned, [2, 4]);
  assert.ok(cm.estimate(canonical) >= cm.triggerTokens);
  const pruned = prepared.messages[2];
  assert.match(pruned.content, new RegExp(PRUNE_MARKER.replace(/[[\].]/g, "\\$&")));
  assert.equal(Array.from(pruned.content).length, 4096 + 1024 + PRUNE_MARKER.length + 2);
  assert.equal(canonical[2].content.length, 9000, "the canonical message is never rewritten");
  assert.ok(cm.estimate(prepared.messages) < cm.triggerTokens);
  // The next view reuses the same derived objects: the prefix stays byte-identical.
  const again = await cm.prepare([...canonical, { role: "user", content: "more" }], { signal });
  prepared.messages.forEach((m, i) => assert.equal(again.messages[i], m));
});

Deno.test("a summary replaces the old prefix, keeps 16% verbatim and reuses the live prefix", async () => {
  const { cm, provider, projections } = manager([textReply("SUMMARY of the old work")], {
    contextWindow: 60_000,
  });
  const canonical = conversation(40, 1, 4500);
  assert.ok(cm.estimate(canonical) >= cm.triggerTokens);
  const live = cm.view(canonical);
  const prepared = await cm.prepare(canonical, { signal });
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["summarized"]);

  const req = provider.requests[0];
  assert.equal(req.system, "system prompt");
  assert.equal(req.tools, TOOLS, "the summary request sends the same tool schemas");
  assert.equal(req.maxOutputTokens, 8192, "spec §3.6: the summary output cap is 8192 tokens");
  assert.equal(SUMMARY_MAX_TOKENS, 8192);
  const prefix = req.messages.slice(0, -1);
  prefix.forEach((m, i) => assert.equal(m, live[i], `summary message ${i} is the live one`));
  assert.equal(req.messages.at(-1)?.content, COMPACTION_INSTRUCTION);

  const record = projections.at(-1)!;
  assert.equal(record.summary, "SUMMARY of the old work");
  assert.equal(record.summarizedUpTo, prefix.length);
  assert.notEqual(canonical[record.summarizedUpTo].role, "tool", "a tool group is never split");
  const kept = canonical.slice(record.summarizedUpTo);
  const keptTokens = kept.reduce((n, m) => n + new TokenEstimator().message(m), 0);
  const unit = 1400; // one user turn with its tool round, in tokens, roughly
  assert.ok(keptTokens <= 0.16 * 60_000, `kept ${keptTokens} tokens`);
  assert.ok(keptTokens >= 0.16 * 60_000 - unit, `kept ${keptTokens} tokens`);
  assert.match(prepared.messages[0].content, /^<checkpoint>\nSummary of the earlier/);
  const checkpoint = prepared.messages[0].content.split("</checkpoint>")[0];
  assert.doesNotMatch(checkpoint, /generation|\d/, "no counter in the checkpoint text");
  assert.ok(cm.estimate(prepared.messages) < cm.triggerTokens);
});

Deno.test("the next threshold merges the previous summary and new history into one digest", async () => {
  const { cm, provider } = manager([textReply("FIRST"), textReply("SECOND")]);
  const canonical = conversation(14, 1, 4500);
  await cm.prepare(canonical, { signal });
  const grown = [...canonical, ...conversation(14, 1, 4500)];
  await cm.prepare(grown, { signal });
  const second = provider.requests[1];
  assert.match(second.messages[0].content, /^<checkpoint>[\s\S]*FIRST/);
  assert.equal(cm.projection.summary, "SECOND");
  assert.equal(cm.projection.generation, 2);
});

Deno.test("a summary that is not smaller is refused and the same generation is not retried", async () => {
  const { cm, provider, projections, failures } = manager([textReply("x".repeat(60_000))]);
  const canonical = conversation(14, 1, 4500);
  const before = cm.view(canonical);
  const prepared = await cm.prepare(canonical, { signal });
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["failed"]);
  assert.match(prepared.reports[0].reason!, /not smaller/);
  assert.equal(projections.length, 0, "no digest is forged");
  assert.equal(failures.length, 1);
  prepared.messages.forEach((m, i) => assert.equal(m, before[i]));
  // Paused: the same view does not pay for another summary.
  await cm.prepare(canonical, { signal });
  assert.equal(provider.requests.length, 1);
});

Deno.test("errors, empty output and the token cap never forge a digest", async () => {
  for (
    const reply of [
      { chunks: [], error: new ProviderError("provider_server", "503", { status: 503 }) },
      textReply("   "),
      {
        chunks: [{ type: "text" as const, text: "half" }, {
          type: "done" as const,
          finishReason: "length" as const,
        }],
      },
    ]
  ) {
    const { cm, projections } = manager([reply]);
    const prepared = await cm.prepare(conversation(14, 1, 4500), { signal });
    assert.equal(prepared.reports.at(-1)?.phase, "failed");
    assert.equal(projections.length, 0);
  }
});

Deno.test("at the hard limit a failed summary falls back to the truncate projection", async () => {
  const { cm, projections } = manager([textReply("")]);
  const canonical = conversation(30, 1, 2500);
  assert.ok(cm.estimate(canonical) >= cm.hardLimit);
  const prepared = await cm.prepare(canonical, { signal });
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["failed", "truncated"]);
  const record = projections.at(-1)!;
  assert.ok(record.truncated);
  assert.ok(cm.estimate(prepared.messages) < cm.triggerTokens);
  assert.ok(prepared.messages.some((m) => m.content === BLANKED_RESULT));
  assert.equal(prepared.messages.at(-1), canonical.at(-1));
  // The current request survives.
  const lastUser = canonical.findLast((m) => m.role === "user")!;
  assert.ok(prepared.messages.some((m) => m.content.endsWith(lastUser.content)));
});

Deno.test("when even truncation cannot fit, compaction is required", async () => {
  const { cm } = manager([textReply("")]);
  const huge: Message[] = [{ role: "user", content: "u".repeat(100_000) }];
  await assert.rejects(() => cm.prepare(huge, { signal }), CompactionRequiredError);
});

Deno.test("overflow rescue folds completed rounds of the current turn, keeping the last two", async () => {
  const { cm, provider, projections } = manager([textReply("folded")], { contextWindow: 100_000 });
  const canonical = conversation(1, 6, 200);
  const prepared = await cm.rescueOverflow(canonical, {
    signal,
    turnStart: 0,
    statedPromptTokens: 150_000,
  });
  assert.equal(provider.requests.length, 1);
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["summarized"]);
  const rounds = canonical.map((m, i) => (m.role === "assistant" ? i : -1)).filter((i) => i >= 0);
  // Six tool rounds and the final answer: the last two rounds stay verbatim.
  assert.equal(projections.at(-1)!.summarizedUpTo, rounds[rounds.length - 2]);
  assert.ok(cm.estimate(prepared.messages) > 0);
});

Deno.test("a summary request the provider rejects is re-planned smaller, then sent bounded", async () => {
  const overflow = () => ({
    chunks: [],
    error: new ContextOverflowError("prompt is too long: 9999 tokens"),
  });
  const { cm, provider } = manager([
    overflow(),
    overflow(),
    overflow(),
    textReply("bounded summary"),
  ]);
  const canonical = conversation(14, 1, 4500);
  const prepared = await cm.prepare(canonical, { signal });
  assert.equal(provider.requests.length, 4);
  const sizes = provider.requests.slice(0, 3).map((r) => r.messages.length);
  assert.ok(sizes[0] > sizes[1] && sizes[1] > sizes[2], `prefixes shrink: ${sizes}`);
  const last = provider.requests[3];
  assert.deepEqual(last.tools, [], "the bounded form carries no tool schemas");
  assert.match(last.messages[0].content, /^<transcript>/);
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["summarized"]);
});

Deno.test("manual compaction summarizes everything, even below the trigger", async () => {
  const { cm } = manager([textReply("all of it")]);
  const canonical = conversation(2, 1, 100);
  const prepared = await cm.compactNow(canonical, { signal });
  assert.equal(cm.projection.summarizedUpTo, canonical.length);
  assert.equal(prepared.messages.length, 1);
  // The next user message folds into the checkpoint message.
  const next = cm.view([...canonical, { role: "user", content: "continue" }]);
  assert.equal(next.length, 1);
  assert.match(next[0].content, /all of it[\s\S]*continue$/);
});

Deno.test("/compact instructions follow the standard ones at the end of the summary request", async () => {
  const { cm, provider } = manager([textReply("kept the API notes")]);
  const canonical = conversation(2, 1, 100);
  await cm.compactNow(canonical, { signal, instructions: "  keep the API design notes  " });
  const request = provider.requests[0];
  const last = request.messages.at(-1)!;
  assert.equal(
    last.content,
    `${COMPACTION_INSTRUCTION}\n\nThe user adds these instructions for this summary:\n` +
      "keep the API design notes",
  );
  // Everything before the instruction is the live view, byte for byte: the prefix cache holds.
  assert.deepEqual(request.messages.slice(0, -1), canonical);
});

Deno.test("blank /compact instructions leave the standard instruction alone", () => {
  assert.equal(compactionInstruction(" \n "), COMPACTION_INSTRUCTION);
  assert.equal(compactionInstruction(undefined), COMPACTION_INSTRUCTION);
});

Deno.test("maintenance is single-flight", async () => {
  const { cm, provider } = manager([{ ...textReply("S"), delayMs: 20 }]);
  const canonical = conversation(14, 1, 4500);
  await Promise.all([cm.prepare(canonical, { signal }), cm.prepare(canonical, { signal })]);
  assert.equal(provider.requests.length, 1);
});

Deno.test("a restored projection is applied as is on resume", () => {
  const canonical = conversation(3, 1, 100);
  const { cm } = manager([], {
    projection: { generation: 4, summarizedUpTo: 4, summary: "restored", pruned: [] },
  });
  const view = cm.view(canonical);
  assert.match(view[0].content, /^<checkpoint>[\s\S]*restored[\s\S]*request 1/);
  assert.equal(view.length, canonical.length - 4);
});

Deno.test("the planning margin is 5% of the window and at least 256 tokens", () => {
  assert.equal(manager([]).cm.hardLimit, 19_000, "20000 - 5%");
  assert.equal(manager([], { contextWindow: 4000 }).cm.hardLimit, 3744, "4000 - 256");
  assert.equal(manager([]).cm.growthStep, 1000, "the retry pause is 5% of the window");
});

Deno.test("a prune rewrites only the pruned results: earlier bytes and the head stay", async () => {
  const { cm } = manager([textReply("S")], { contextWindow: 60_000 });
  const canonical = conversation(40, 1, 4500);
  const first = await cm.prepare(canonical, { signal });
  assert.deepEqual(first.reports.map((r) => r.phase), ["summarized"]);
  assert.equal(cm.projection.generation, 1);
  // Long results arrive: the next maintenance prunes them and nothing else.
  const grown = [...canonical, ...conversation(16, 1, 9000)];
  const before = cm.view(grown);
  const second = await cm.prepare(grown, { signal });
  assert.deepEqual(second.reports.map((r) => r.phase), ["pruned"]);
  assert.equal(cm.projection.generation, 1, "a prune is not a new generation");
  const changed = second.messages.flatMap((m, i) => (m === before[i] ? [] : [i]));
  assert.ok(changed.length > 0);
  for (const i of changed) {
    assert.equal(second.messages[i].role, "tool");
    assert.match(second.messages[i].content, /tool result middle pruned/);
  }
  assert.equal(second.messages[0], before[0], "the checkpoint message is the same object");
});

Deno.test("a summary after a prune sends the bytes of the last request, not the pruned ones", async () => {
  const { cm, provider } = manager([textReply("S1"), textReply("S2")], { contextWindow: 40_000 });
  // Below the trigger: the request goes out as is.
  const canonical = conversation(6, 1, 9500);
  const sent = await cm.prepare(canonical, { signal });
  assert.deepEqual(sent.reports, []);
  // Over the trigger: pruning is not enough, so a summary follows in the same transaction.
  const grown = [...canonical, ...conversation(25, 1, 4000)];
  const prepared = await cm.prepare(grown, { signal });
  assert.deepEqual(prepared.reports.map((r) => r.phase).slice(0, 2), ["pruned", "summarized"]);
  const summary = provider.requests[0].messages.slice(0, -1);
  const shared = Math.min(summary.length, sent.messages.length);
  assert.ok(shared > 0);
  for (let i = 0; i < shared; i++) {
    assert.equal(summary[i], sent.messages[i], `summary message ${i} is the one sent before`);
  }
});

Deno.test("pressure makes at most two summaries, overflow one", async () => {
  // Each summary is barely smaller than what it replaces, so pressure remains; the first
  // summary request cannot carry all the old history, so the second has history left to fold.
  const big = "s".repeat(145_000);
  const { cm, provider } = manager([textReply(big), textReply(big), textReply(big)], {
    contextWindow: 60_000,
  });
  const canonical = conversation(66, 1, 3000);
  const prepared = await cm.prepare(canonical, { signal });
  assert.equal(provider.requests.length, 2);
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["summarized", "summarized"]);

  const over = manager([textReply(big), textReply(big)], { contextWindow: 60_000 });
  await over.cm.rescueOverflow(canonical, { signal, turnStart: canonical.length - 1 }).catch(
    () => {},
  );
  assert.equal(over.provider.requests.length, 1);
});

Deno.test("summary replies feed the real prompt count back into the estimator", async () => {
  const estimator = new TokenEstimator();
  const reply = textReply("S");
  reply.chunks.splice(1, 0, {
    type: "usage",
    usage: { promptTokens: 90_000, completionTokens: 10, cacheHitTokens: 0, cacheMissTokens: 0 },
  });
  const { cm } = manager([reply], { contextWindow: 60_000, estimator });
  await cm.prepare(conversation(40, 1, 4500), { signal });
  assert.ok(estimator.scale > 1.5, `the estimate was recalibrated: ${estimator.scale}`);
});

Deno.test("a failure receipt survives later prunes: the same generation does not pay again", async () => {
  const { cm, provider, failures } = manager([textReply(""), textReply("")], {
    contextWindow: 40_000,
  });
  const canonical = conversation(25, 1, 4500);
  await cm.prepare(canonical, { signal });
  assert.equal(provider.requests.length, 1);
  assert.equal(failures.length, 1);
  // A long result arrives and is pruned: the maintained view grew less than 5%.
  const grown = [...canonical, ...conversation(1, 1, 12_000)];
  const prepared = await cm.prepare(grown, { signal });
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["pruned"]);
  assert.equal(provider.requests.length, 1, "no second paid attempt");
  // Once the maintained view grew by 5% of the window, one more attempt is allowed.
  const more = [...grown, ...conversation(3, 1, 1200)];
  await cm.prepare(more, { signal });
  assert.equal(provider.requests.length, 2);
});

Deno.test("a summary never brings back results that truncation blanked", async () => {
  const canonical = conversation(47, 1, 4500);
  const tools = canonical.flatMap((m, i) => (m.role === "tool" ? [i] : []));
  // A restored truncation blanked the results of turns 36-45: inside the part a summary keeps.
  const blanked = tools.slice(36, 46);
  const { cm } = manager([textReply("S")], {
    contextWindow: 60_000,
    projection: {
      generation: 0,
      summarizedUpTo: 0,
      pruned: [],
      truncated: { blanked, droppedUpTo: 0 },
    },
  });
  const before = cm.estimate(cm.view(canonical));
  assert.ok(before >= cm.triggerTokens);
  const prepared = await cm.prepare(canonical, { signal });
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["summarized"]);
  const cut = cm.projection.summarizedUpTo;
  const kept = blanked.filter((i) => i >= cut);
  assert.ok(kept.length >= 3, `blanked results after the cut: ${kept.length}`);
  assert.deepEqual(cm.projection.truncated?.blanked, kept, "they stay blanked");
  for (const i of kept) {
    assert.ok(
      prepared.messages.some((m) =>
        m.toolCallId === canonical[i].toolCallId && m.content === BLANKED_RESULT
      ),
    );
  }
  assert.ok(cm.estimate(prepared.messages) < before);
});

Deno.test("an overflow error's stated window is learned, reported and planned for", async () => {
  const learned: number[] = [];
  const { cm } = manager([textReply("S")], {
    contextWindow: 200_000,
    onWindowLearned: (n) => learned.push(n),
  });
  const canonical = conversation(10, 1, 6000);
  const prepared = await cm.rescueOverflow(canonical, {
    signal,
    turnStart: canonical.length - 1,
    statedLimit: 16_000,
    statedPromptTokens: 20_000,
  });
  assert.deepEqual(learned, [16_000]);
  assert.equal(cm.contextWindow, 16_000);
  assert.equal(cm.triggerTokens, 12_800);
  assert.equal(prepared.reports[0].learnedWindow, 16_000);
  assert.ok(cm.estimate(prepared.messages) < 15_200, "the retry fits the learned window");
  assert.equal(cm.learnWindow(30_000), false, "a larger window is never adopted");
});

Deno.test("/compact on a view too large for one summary request chains chunks", async () => {
  const { cm, provider } = manager(
    Array.from({ length: 8 }, (_, i) => textReply(`C${i + 1}`)),
    { contextWindow: 20_000 },
  );
  // About 2.5 windows of history: no single summary request can carry it.
  const canonical = conversation(25, 1, 6000);
  const prepared = await cm.compactNow(canonical, { signal });
  assert.ok(provider.requests.length >= 2, `${provider.requests.length} chunks`);
  for (const [i, request] of provider.requests.entries()) {
    assert.ok(cm.estimate(request.messages) <= 20_000 - 8192 - 1000, `chunk ${i} fits`);
    if (i > 0) assert.match(request.messages[0].content, new RegExp(`C${i}`));
  }
  assert.equal(cm.projection.summarizedUpTo, canonical.length);
  assert.equal(prepared.messages.length, 1);
  assert.ok(prepared.reports.every((r) => r.phase === "summarized"));
});

Deno.test("a growing transcript extends the last view and its token count, until the projection changes", async () => {
  const { cm } = manager([]);
  const canonical = conversation(1, 2, 9000);
  const fresh = (messages: readonly Message[]) => {
    const estimator = new TokenEstimator();
    let raw = estimator.rawRequest("system prompt", TOOLS, []);
    for (const m of messages) raw += estimator.rawMessage(m);
    return raw;
  };
  let prepared = await cm.prepare(canonical, { signal });
  for (let i = 0; i < 3; i++) {
    canonical.push(...conversation(1, 1, 50));
    prepared = await cm.prepare(canonical, { signal });
    assert.deepEqual(prepared.messages, canonical);
    assert.equal(prepared.rawTokens, fresh(canonical));
  }
  // Past the trigger a prune installs a new projection: the view is rebuilt with it.
  canonical.push(...conversation(10, 1, 4000));
  prepared = await cm.prepare(canonical, { signal });
  assert.deepEqual(prepared.reports.map((r) => r.phase), ["pruned"]);
  assert.notEqual(prepared.messages[2], canonical[2]);
  const grown: Message[] = [...canonical, { role: "user", content: "more" }];
  const next = await cm.prepare(grown, { signal });
  assert.equal(next.messages[2], prepared.messages[2], "the pruned form stays in the view");
  assert.equal(next.rawTokens, fresh(next.messages));
  // The same transcript with an earlier message replaced is not an extension.
  const edited = [...grown];
  edited[1] = { ...edited[1], content: "rewritten step" };
  assert.equal((await cm.prepare(edited, { signal })).messages[1].content, "rewritten step");
});

Deno.test("a new context manager over the same session reuses the pruned forms (a model switch)", async () => {
  const canonical = [...conversation(1, 2, 9000), ...conversation(10, 1, 4000)];
  const first = await manager([]).cm.prepare(canonical, { signal });
  const second = await manager([]).cm.prepare(canonical, { signal });
  assert.deepEqual(first.reports.map((r) => r.phase), ["pruned"]);
  assert.notEqual(first.messages[2], canonical[2]);
  assert.equal(second.messages[2], first.messages[2], "pruned once per result, not per manager");
});
