import assert from "node:assert/strict";
import { ConfigError } from "../config/errors.ts";
import { resolveModel } from "../config/resolve_model.ts";
import type { Config, ProviderConfig } from "../config/types.ts";
import { imagesUnsupportedError, modelLabel, planVision } from "./plan.ts";

function provider(p: Partial<ProviderConfig> & { name: string }): ProviderConfig {
  return {
    kind: "openai",
    models: [],
    context_window: 100_000,
    max_output_tokens: 0,
    model_overrides: {},
    headers: {},
    options: {},
    ...p,
  };
}

// Official DeepSeek: the capability table knows its vision model.
const deepseek = provider({
  name: "deepseek",
  kind: "anthropic",
  base_url: "https://api.deepseek.com/anthropic",
  models: ["deepseek-v4-flash", "deepseek-v4-pro", "deepseek-v4-flash-vision-exp"],
});
const gateway = provider({
  name: "gateway",
  base_url: "https://gw.example/v1",
  models: ["text-only", "seer"],
  options: { vision_models: ["seer"] },
});
const plain = provider({ name: "plain", base_url: "https://plain.example", models: ["words"] });
const eyes = provider({
  name: "eyes",
  base_url: "https://eyes.example",
  models: ["eye-1"],
  options: { images: true },
});

function config(vision_model?: string, default_model = "deepseek/deepseek-v4-flash"): Config {
  return {
    default_model,
    agent: { max_turns: 10, compact_ratio: 0.8, reasoning_language: "auto", vision_model },
    providers: [deepseek, gateway, plain, eyes],
    tools: {
      enabled: [],
      bash_timeout_seconds: 1,
      mcp_startup_timeout_seconds: 1,
      mcp_call_timeout_seconds: 1,
    },
    permissions: { mode: "ask", allow: [], ask: [], deny: [] },
    sandbox: { allow_write: [], forbid_read: [] },
    mcp: {},
    sources: [],
  };
}

function plan(vision_model: string | undefined, executor: string) {
  const c = config(vision_model);
  return planVision(c, resolveModel(c, executor));
}

Deno.test("an image-capable executor gets images directly whatever vision_model says", () => {
  for (const setting of [undefined, "", "auto", "gateway/seer"]) {
    assert.deepEqual(plan(setting, "eyes/eye-1"), { mode: "direct" });
    assert.deepEqual(plan(setting, "deepseek/deepseek-v4-flash-vision-exp"), { mode: "direct" });
  }
});

Deno.test("an empty vision_model leaves a text-only executor without images", () => {
  const cases: [string | undefined, string][] = [
    [undefined, "deepseek/deepseek-v4-flash"],
    ["  ", "plain/words"],
  ];
  for (const [setting, executor] of cases) {
    const p = plan(setting, executor);
    assert.equal(p.mode, "none");
    assert.equal(p.mode === "none" && p.error.problem, `model ${executor} cannot read images`);
  }
});

Deno.test("auto picks the first image-capable model of the executor's own provider", () => {
  const fromTable = plan("auto", "deepseek/deepseek-v4-pro");
  assert.equal(fromTable.mode, "describe");
  assert.equal(
    fromTable.mode === "describe" && modelLabel(fromTable.vision),
    "deepseek/deepseek-v4-flash-vision-exp",
  );
  const fromOptions = plan("auto", "gateway/text-only");
  assert.equal(fromOptions.mode === "describe" && modelLabel(fromOptions.vision), "gateway/seer");
});

Deno.test("auto never crosses providers; finding nothing only matters once images come", () => {
  const p = plan("auto", "plain/words");
  assert.equal(p.mode, "none");
  const error = p.mode === "none" ? p.error : undefined;
  assert.ok(error instanceof ConfigError);
  assert.equal(
    error.problem,
    'model plain/words cannot read images and agent.vision_model = "auto" found no ' +
      'image-capable model in provider "plain"',
  );
  assert.match(error.fix ?? "", /vision_models = \["\.\.\."\] \(or images = true\)/);
});

Deno.test("an explicit provider/model may cross providers", () => {
  const crossed = plan("eyes/eye-1", "deepseek/deepseek-v4-flash");
  assert.equal(crossed.mode === "describe" && modelLabel(crossed.vision), "eyes/eye-1");
  const bare = plan("seer", "plain/words");
  assert.equal(bare.mode === "describe" && modelLabel(bare.vision), "gateway/seer");
});

Deno.test("an explicit vision_model that is unknown or cannot see is a config error", () => {
  assert.throws(
    () => plan("nowhere/model", "plain/words"),
    (e: unknown) =>
      e instanceof ConfigError && e.problem.startsWith('agent.vision_model = "nowhere/model": ') &&
      /image-capable/.test(e.fix ?? ""),
  );
  assert.throws(
    () => plan("gateway/text-only", "plain/words"),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.problem ===
        'agent.vision_model = "gateway/text-only" names gateway/text-only, which is not known to accept images',
  );
  // Checked even when the executor would not need it.
  assert.throws(() => plan("plain/words", "eyes/eye-1"), ConfigError);
});

Deno.test("the no-fallback error names the model and both fixes", () => {
  const c = config();
  const error = imagesUnsupportedError(resolveModel(c, "plain/words"));
  assert.equal(error.code, "config_invalid");
  assert.equal(error.problem, "model plain/words cannot read images");
  assert.match(error.message, /agent\.vision_model = "auto"/);
  assert.match(error.message, /image-capable model/);
});
