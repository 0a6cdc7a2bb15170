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
