import assert from "node:assert/strict";
import stringWidth from "string-width";
import {
  compactTrigger,
  fitStatus,
  formatCost,
  formatTokens,
  type StatusInfo,
  statusSegments,
} from "./status.ts";

const info: StatusInfo = {
  model: "deepseek/deepseek-v4-flash",
  contextWindow: 128_000,
  compactRatio: 0.8,
  lastPromptTokens: 25_600,
  totals: {
    promptTokens: 40_000,
    completionTokens: 900,
    cacheHitTokens: 30_000,
    cacheMissTokens: 10_000,
    cost: 0.01234,
    currency: "USD",
  },
  effort: "high",
  mode: "ask",
};

const text = (width: number) =>
  fitStatus(statusSegments(info), width).map((s) => s.text).join(" · ");

Deno.test("the status line shows model, context of window and of compaction, cache and cost", () => {
  assert.equal(compactTrigger(128_000, 0.8), 102_400);
  assert.equal(
    text(200),
    "deepseek/deepseek-v4-flash · ctx 25.6k/128k 20% · 25% of compact · cache 75% · $0.0123 · effort high · ask",
  );
});

Deno.test("narrow terminals get short forms, then fewer segments, then a truncated model", () => {
  assert.equal(
    text(80),
    "deepseek/deepseek-v4-flash · ctx 20%·25% · cache 75% · $0.0123 · ask",
  );
  assert.equal(text(60), "deepseek/deepseek-v4-flash · ctx 20%·25% · $0.0123");
  assert.equal(text(40), "deepseek/deepseek-v4-flash · ctx 20%·25%");
  assert.equal(text(30), "deepseek/deepseek-v4-flash");
  assert.equal(text(20), "deepseek/deepseek-v…");
  for (const width of [1, 5, 12, 33, 47, 79]) assert.ok(stringWidth(text(width)) <= width);
});

Deno.test("token and money formats stay short", () => {
  assert.deepEqual([950, 12_345, 128_000, 1_000_000, 1_234_567].map(formatTokens), [
    "950",
    "12.3k",
    "128k",
    "1M",
    "1.2M",
  ]);
  assert.equal(formatCost(0.5, "CNY"), "¥0.5000");
  assert.equal(formatCost(12.345, "EUR"), "12.35 EUR");
});

Deno.test("an unpriced model shows no cost and an idle session shows no cache ratio", () => {
  const idle = statusSegments({
    ...info,
    lastPromptTokens: 0,
    totals: { promptTokens: 0, completionTokens: 0, cacheHitTokens: 0, cacheMissTokens: 0 },
    effort: undefined,
    mode: undefined,
  });
  assert.deepEqual(idle.map((s) => s.text), [
    "deepseek/deepseek-v4-flash",
    "ctx 0/128k 0% · 0% of compact",
    "cache –",
  ]);
});

Deno.test("the cache segment adds the meter's prefix share, and an unplanned break warns", () => {
  const last = {
    turn: 4,
    cause: "tools" as const,
    planned: false,
    offset: 900,
    bytesInvalidated: 30_000,
    detail: "tools of MCP server github: removed mcp__github__search",
  };
  const withCache = (cache: StatusInfo["cache"]) =>
    statusSegments({ ...info, cache }).map((s) => s.text).join(" · ");
  assert.match(
    withCache({ requestBytes: 200_000, cachedBytes: 180_000, unplanned: 0 }),
    / · cache 75% \(prefix 90%\) · \$/,
  );
  const warned = withCache({ requestBytes: 200_000, cachedBytes: 150_000, unplanned: 2, last });
  assert.match(warned, / · ⚠ cache break: tools \(2 unplanned\)/);
  // A planned break (maintenance) is no warning.
  const planned = withCache({
    requestBytes: 200_000,
    cachedBytes: 150_000,
    unplanned: 2,
    last: { ...last, cause: "prune", planned: true },
  });
  assert.doesNotMatch(planned, /⚠/);
  // The warning outlives the cost and the cache share on a narrow line.
  const narrow = fitStatus(
    statusSegments({ ...info, cache: { requestBytes: 1, cachedBytes: 1, unplanned: 1, last } }),
    60,
  ).map((s) => s.text).join(" · ");
  assert.equal(narrow, "deepseek/deepseek-v4-flash · ctx 20%·25% · ⚠ break: tools");
});

Deno.test("plan mode shows after the permission mode and outlasts it on a narrow line", () => {
  const plan = (width: number) =>
    fitStatus(statusSegments({ ...info, plan: true }), width).map((s) => s.text).join(" · ");
  assert.match(plan(200), / · ask · plan$/);
  assert.equal(plan(40), "deepseek/deepseek-v4-flash · plan");
  assert.doesNotMatch(text(200), /plan/);
});
