import assert from "node:assert/strict";
import type { AgentEvent } from "../../core/agent/events.ts";
import { JsonSummaryWriter, type RunSummary } from "./json_summary.ts";

const INFO = {
  sessionId: "s-1",
  model: "fake/fake-model",
  tools: ["read_file"],
  cwd: "/work/repo",
  permissionMode: "auto",
};

function done(requestBytes?: number, cachedBytes?: number): AgentEvent {
  return {
    type: "done",
    status: "completed",
    text: "ok",
    turns: 3,
    toolCalls: 2,
    usage: {
      promptTokens: 900,
      completionTokens: 30,
      cacheHitTokens: 600,
      cacheMissTokens: 300,
      ...(requestBytes !== undefined ? { requestBytes, cachedBytes } : {}),
    },
  };
}

Deno.test("the JSON summary lists the cache breaks of the turn and the measured bytes", () => {
  const out: string[] = [];
  const writer = new JsonSummaryWriter({ write: (t) => out.push(t), info: INFO, now: () => 0 });
  writer.beginTurn();
  writer.event({
    type: "cache_break",
    cacheBreak: {
      turn: 3,
      cause: "prune",
      planned: true,
      offset: 20_000,
      bytesInvalidated: 9_000,
      message: 4,
      detail: "message 4 rewritten by prune",
    },
  });
  writer.event(done(60_000, 45_000));
  const summary = JSON.parse(out[0]) as RunSummary;
  assert.deepEqual(summary.cache_breaks, [{
    turn: 3,
    cause: "prune",
    planned: true,
    offset: 20_000,
    bytes_invalidated: 9_000,
    message: 4,
    tools: null,
    detail: "message 4 rewritten by prune",
    purpose: null,
  }]);
  assert.deepEqual(summary.cache, {
    request_bytes: 60_000,
    cached_bytes: 45_000,
    prefix_share: 0.75,
  });

  // The next user turn starts a new list.
  writer.beginTurn();
  writer.event(done());
  const next = JSON.parse(out[1]) as RunSummary;
  assert.deepEqual(next.cache_breaks, []);
  assert.deepEqual(next.cache, { request_bytes: 0, cached_bytes: 0, prefix_share: 0 });
});
