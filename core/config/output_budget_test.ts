import assert from "node:assert/strict";
import { outputTokenBudget } from "./output_budget.ts";
import type { ProviderConfig, ResolvedModel } from "./types.ts";

function resolved(maxOutputTokens: number, baseUrl = "https://gw.example"): ResolvedModel {
  const provider: ProviderConfig = {
    name: "p",
    kind: "openai",
    base_url: baseUrl,
    models: [],
    context_window: 1_000_000,
    max_output_tokens: maxOutputTokens,
    model_overrides: {},
    headers: {},
    options: {},
  };
  return { provider, model: "m", contextWindow: 1_000_000, maxOutputTokens };
}

const AUTO = 384 * 1024;

Deno.test("0 on an endpoint without a known automatic budget omits the field", () => {
  assert.equal(outputTokenBudget(resolved(0), 0), undefined);
  assert.equal(outputTokenBudget(resolved(0), 999_999), undefined);
});

Deno.test("0 on official DeepSeek omits the field while 384K fits, then clamps", () => {
  const r = resolved(0, "https://api.deepseek.com");
  assert.equal(outputTokenBudget(r, 0), undefined);
  assert.equal(outputTokenBudget(r, 1_000_000 - AUTO), undefined);
  assert.equal(outputTokenBudget(r, 1_000_000 - AUTO + 1), AUTO - 1);
  assert.equal(outputTokenBudget(r, 999_000), 1000);
  assert.equal(outputTokenBudget(r, 1_000_000), 1);
  assert.equal(outputTokenBudget(r, 2_000_000), 1);
});

Deno.test("a positive cap is sent, clamped to the remaining window and at least 1", () => {
  const r = resolved(32768);
  assert.equal(outputTokenBudget(r, 0), 32768);
  assert.equal(outputTokenBudget(r, 1_000_000 - 32768), 32768);
  assert.equal(outputTokenBudget(r, 1_000_000 - 32767), 32767);
  assert.equal(outputTokenBudget(r, 1_000_000 - 1), 1);
  assert.equal(outputTokenBudget(r, 1_000_000), 1);
  assert.equal(outputTokenBudget(r, 1_500_000), 1);
});

Deno.test("a negative value always omits the field", () => {
  assert.equal(outputTokenBudget(resolved(-1), 0), undefined);
  assert.equal(outputTokenBudget(resolved(-1, "https://api.deepseek.com"), 999_999), undefined);
});

Deno.test("outputTokenBudget rejects a negative or non-finite prompt size", () => {
  assert.throws(() => outputTokenBudget(resolved(0), -1), RangeError);
  assert.throws(() => outputTokenBudget(resolved(0), Number.NaN), RangeError);
});
