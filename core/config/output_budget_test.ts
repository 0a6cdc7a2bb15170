// The kinds register the descriptors the budget reads (the anthropic one requires the field).
import "../../providers/builtin_kinds.ts";
import assert from "node:assert/strict";
import { automaticOutputTokens, outputBudgetPlan, outputTokenBudget } from "./output_budget.ts";
import type { ProviderConfig, ResolvedModel } from "./types.ts";

function resolved(
  maxOutputTokens: number,
  baseUrl = "https://gw.example",
  kind = "openai",
  options: Record<string, unknown> = {},
): ResolvedModel {
  const provider: ProviderConfig = {
    name: "p",
    kind,
    base_url: baseUrl,
    models: [],
    context_window: 1_000_000,
    max_output_tokens: maxOutputTokens,
    model_overrides: {},
    headers: {},
    options,
  };
  return { provider, model: "m", contextWindow: 1_000_000, maxOutputTokens };
}

const AUTO = 384 * 1024;
const DEEPSEEK = "https://api.deepseek.com";
const DEEPSEEK_ANTHROPIC = "https://api.deepseek.com/anthropic";

Deno.test("0 on an endpoint without a known automatic budget omits the field", () => {
  assert.equal(outputTokenBudget(resolved(0), 0), undefined);
  assert.equal(outputTokenBudget(resolved(0), 999_999), undefined);
});

for (const kind of ["openai", "responses"]) {
  Deno.test(`0 on official DeepSeek (${kind}) omits the field while 384K fits, then clamps`, () => {
    const r = resolved(0, DEEPSEEK, kind);
    assert.equal(automaticOutputTokens(r), AUTO);
    assert.equal(outputTokenBudget(r, 0), undefined);
    assert.equal(outputTokenBudget(r, 1_000_000 - AUTO), undefined);
    assert.equal(outputTokenBudget(r, 1_000_000 - AUTO + 1), AUTO - 1);
    assert.equal(outputTokenBudget(r, 999_000), 1000);
    assert.equal(outputTokenBudget(r, 1_000_000), 1);
    assert.equal(outputTokenBudget(r, 2_000_000), 1);
  });
}

Deno.test("0 on DeepSeek's Anthropic layer always sends 384K or the clamp", () => {
  const r = resolved(0, DEEPSEEK_ANTHROPIC, "anthropic");
  assert.equal(outputTokenBudget(r, 0), AUTO);
  assert.equal(outputTokenBudget(r, 1_000_000 - AUTO), AUTO);
  assert.equal(outputTokenBudget(r, 999_000), 1000);
  assert.equal(outputTokenBudget(r, 1_000_000), 1);
});

Deno.test("an Anthropic endpoint nothing is known about gets the kind's default cap", () => {
  const r = resolved(0, "https://api.anthropic.com", "anthropic");
  assert.equal(outputTokenBudget(r, 0), 32768);
  assert.equal(outputTokenBudget(r, 990_000), 10_000);
  assert.equal(outputTokenBudget(r, 0, { learnedLimit: 8192 }), 8192);
});

Deno.test("a positive cap is sent, clamped to the remaining window and at least 1", () => {
  for (const kind of ["openai", "anthropic"]) {
    const r = resolved(32768, "https://gw.example", kind);
    assert.equal(outputTokenBudget(r, 0), 32768);
    assert.equal(outputTokenBudget(r, 1_000_000 - 32768), 32768);
    assert.equal(outputTokenBudget(r, 1_000_000 - 32767), 32767);
    assert.equal(outputTokenBudget(r, 1_000_000 - 1), 1);
    assert.equal(outputTokenBudget(r, 1_000_000), 1);
    assert.equal(outputTokenBudget(r, 1_500_000), 1);
    assert.equal(outputTokenBudget(r, 0, { learnedLimit: 4096 }), 4096);
  }
});

Deno.test("a negative value omits the field and asks for compaction when 384K cannot fit", () => {
  assert.deepEqual(outputBudgetPlan(resolved(-1), 999_999), { compact: false });
  const r = resolved(-1, DEEPSEEK);
  assert.deepEqual(outputBudgetPlan(r, 0), { compact: false });
  assert.deepEqual(outputBudgetPlan(r, 1_000_000 - AUTO), { compact: false });
  assert.deepEqual(outputBudgetPlan(r, 1_000_000 - AUTO + 1), { compact: true });
  // The Anthropic wire format cannot omit the field: the clamp rides along.
  assert.deepEqual(outputBudgetPlan(resolved(-1, DEEPSEEK_ANTHROPIC, "anthropic"), 999_000), {
    maxOutputTokens: 1000,
    compact: true,
  });
});

Deno.test("a limit learned from a 400 acts as the automatic budget", () => {
  const r = resolved(0);
  assert.equal(outputTokenBudget(r, 0, { learnedLimit: 8192 }), undefined);
  assert.equal(outputTokenBudget(r, 995_000, { learnedLimit: 8192 }), 5000);
  assert.equal(automaticOutputTokens(resolved(0, DEEPSEEK), { learnedLimit: 100_000 }), 100_000);
});

Deno.test("a gateway can declare its automatic budget as data", () => {
  const r = resolved(0, "https://gw.example", "openai", { automatic_output_tokens: 65536 });
  assert.equal(outputTokenBudget(r, 0), undefined);
  assert.equal(outputTokenBudget(r, 1_000_000 - 1000), 1000);
});

Deno.test("outputTokenBudget rejects a negative or non-finite prompt size", () => {
  assert.throws(() => outputTokenBudget(resolved(0), -1), RangeError);
  assert.throws(() => outputTokenBudget(resolved(0), Number.NaN), RangeError);
});
