// `--model` and `default_model` across every built-in kind, with the real built-in defaults.
import "../../providers/builtin_kinds.ts";
import assert from "node:assert/strict";
import { ConfigError } from "./errors.ts";
import { applyFlags } from "./flags.ts";
import { loadConfig } from "./load.ts";
import { outputTokenBudget } from "./output_budget.ts";
import { resolveModel } from "./resolve_model.ts";
import { configDirs } from "./test_helpers.ts";

const USER = `
[[providers]]
name = "claude"
kind = "anthropic"
base_url = "https://api.anthropic.com"
models = ["claude-sonnet-4-5", "claude-opus-4-1"]
api_key_env = "ANTHROPIC_API_KEY"
context_window = 200000

[[providers]]
name = "oai"
kind = "responses"
base_url = "https://api.openai.com/v1"
models = ["gpt-5", "deepseek-v4-pro"]
default = "gpt-5"
api_key_env = "OPENAI_API_KEY"
context_window = 400000
`;

async function withConfig(
  userToml: string,
  fn: (load: (model?: string) => Promise<ReturnType<typeof resolveModel>>) => Promise<void>,
): Promise<void> {
  const dirs = await configDirs();
  try {
    if (userToml) await dirs.write(dirs.userConfig, userToml);
    await fn(async (model) => {
      const loaded = await loadConfig({ cwd: dirs.cwd, home: dirs.home, env: {} });
      return resolveModel(applyFlags(loaded, { model }), model);
    });
  } finally {
    await dirs.cleanup();
  }
}

Deno.test("the built-in default is DeepSeek over the Anthropic-compatible API", async () => {
  await withConfig("", async (load) => {
    const r = await load();
    assert.equal(r.provider.name, "deepseek");
    assert.equal(r.provider.kind, "anthropic");
    assert.equal(r.provider.base_url, "https://api.deepseek.com/anthropic");
    assert.equal(r.model, "deepseek-v4-flash");
    assert.equal(r.contextWindow, 1_000_000);
    assert.equal(r.provider.api_key_env, "DEEPSEEK_API_KEY");
    assert.equal(r.price?.output, 1.2, "the DeepSeek price table applies by origin");
    assert.equal(outputTokenBudget(r, 1000), 384 * 1024, "max_tokens is required there");
    const openai = await load("deepseek-openai");
    assert.equal(openai.provider.kind, "openai");
    assert.equal(openai.provider.base_url, "https://api.deepseek.com");
    assert.equal(outputTokenBudget(openai, 1000), undefined, "omitted while 384K fits");
  });
});

Deno.test("--model takes a provider name, provider/model or a bare model for every kind", async () => {
  await withConfig(USER, async (load) => {
    const cases: [string, string, string, string][] = [
      ["claude", "claude", "anthropic", "claude-sonnet-4-5"],
      ["claude/claude-opus-4-1", "claude", "anthropic", "claude-opus-4-1"],
      ["claude-opus-4-1", "claude", "anthropic", "claude-opus-4-1"],
      ["oai", "oai", "responses", "gpt-5"],
      ["gpt-5", "oai", "responses", "gpt-5"],
      ["oai/deepseek-v4-pro", "oai", "responses", "deepseek-v4-pro"],
      ["deepseek-openai/deepseek-v4-pro", "deepseek-openai", "openai", "deepseek-v4-pro"],
      ["deepseek/deepseek-v4-pro", "deepseek", "anthropic", "deepseek-v4-pro"],
      // Offered only by the built-in presets: the built-in default provider wins.
      ["deepseek-v4-flash", "deepseek", "anthropic", "deepseek-v4-flash"],
    ];
    for (const [spec, provider, kind, model] of cases) {
      const r = await load(spec);
      assert.deepEqual([r.provider.name, r.provider.kind, r.model], [provider, kind, model], spec);
    }
    // Also offered by a user provider: the user must say which.
    await assert.rejects(
      load("deepseek-v4-pro"),
      (e: unknown) =>
        e instanceof ConfigError && /oai\/deepseek-v4-pro/.test(e.message) &&
        /deepseek\/deepseek-v4-pro/.test(e.message),
    );
  });
});

Deno.test("a bare default_model shared by the built-in presets picks the default provider", async () => {
  await withConfig(`default_model = "deepseek-v4-pro"\n`, async (load) => {
    const r = await load();
    assert.equal(r.provider.name, "deepseek");
    assert.equal(r.model, "deepseek-v4-pro");
  });
  // A user provider offering the same name still makes it ambiguous.
  await withConfig(`default_model = "deepseek-v4-pro"\n${USER}`, async (load) => {
    await assert.rejects(
      load(),
      (e: unknown) => e instanceof ConfigError && /ambiguous/.test(e.message),
    );
  });
});
