import assert from "node:assert/strict";
import type { AgentEvent } from "../../core/agent/events.ts";
import { UsageMeter } from "./usage.ts";

function usageEvent(prompt: number, purpose?: "vision"): AgentEvent {
  const usage = {
    promptTokens: prompt,
    completionTokens: 10,
    cacheHitTokens: 0,
    cacheMissTokens: prompt,
  };
  return {
    type: "usage",
    turn: purpose ? 0 : 1,
    usage,
    cacheHitRatio: 0,
    totals: usage,
    ...(purpose ? { purpose } : {}),
  };
}

Deno.test("an image description counts as a request but not as context fill", () => {
  const meter = new UsageMeter();
  meter.apply(usageEvent(3000));
  meter.apply(usageEvent(9000, "vision"));
  assert.equal(meter.requests, 2);
  assert.equal(meter.totals.promptTokens, 12000);
  assert.equal(meter.lastPromptTokens, 3000, "the window holds the conversation, not the image");
});

Deno.test("the session cache measure adds the runs' bytes and remembers unplanned breaks", () => {
  const meter = new UsageMeter();
  const totals = (requestBytes: number, cachedBytes: number) => ({
    promptTokens: 0,
    completionTokens: 0,
    cacheHitTokens: 0,
    cacheMissTokens: 0,
    requestBytes,
    cachedBytes,
  });
  const usage = { promptTokens: 10, completionTokens: 1, cacheHitTokens: 0, cacheMissTokens: 10 };
  const cacheBreak = (planned: boolean) => ({
    type: "cache_break" as const,
    cacheBreak: {
      turn: 2,
      cause: planned ? "prune" as const : "system" as const,
      planned,
      offset: 10,
      bytesInvalidated: 90,
      detail: "",
    },
  });
  meter.apply({ type: "usage", turn: 1, usage, cacheHitRatio: 0, totals: totals(100, 0) });
  meter.apply(cacheBreak(false));
  meter.apply({ type: "usage", turn: 2, usage, cacheHitRatio: 0, totals: totals(250, 60) });
  assert.deepEqual(
    { ...meter.cache, last: undefined },
    { requestBytes: 250, cachedBytes: 60, unplanned: 1, last: undefined },
  );
  const done = (t: ReturnType<typeof totals>) => ({
    type: "done" as const,
    status: "completed" as const,
    text: "",
    turns: 2,
    toolCalls: 0,
    usage: t,
  });
  meter.apply(done(totals(250, 60)));
  // The next run's totals start at zero again; the session goes on adding.
  meter.apply({ type: "usage", turn: 1, usage, cacheHitRatio: 0, totals: totals(300, 240) });
  meter.apply(cacheBreak(true));
  assert.equal(meter.cache.requestBytes, 550);
  assert.equal(meter.cache.cachedBytes, 300);
  assert.equal(meter.cache.unplanned, 1);
  assert.equal(meter.cache.last?.planned, true);
  meter.apply(done(totals(300, 240)));
  assert.equal(meter.cache.requestBytes, 550);
  meter.reset();
  assert.deepEqual(meter.cache, { requestBytes: 0, cachedBytes: 0, unplanned: 0 });
});
