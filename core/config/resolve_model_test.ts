import assert from "node:assert/strict";
import { ConfigError } from "./errors.ts";
import { resolveModel } from "./resolve_model.ts";
import type { Config, ProviderConfig } from "./types.ts";

function provider(p: Partial<ProviderConfig> & { name: string }): ProviderConfig {
  return {
    kind: "openai",
    models: [],
    context_window: 1000,
    max_output_tokens: 0,
    model_overrides: {},
    headers: {},
    options: {},
    ...p,
  };
}

const deepseek = provider({
  name: "deepseek",
  base_url: "https://api.deepseek.com",
  models: ["deepseek-flash", "deepseek-v4-flash", "deepseek-v4-pro"],
  default: "deepseek-v4-flash",
  context_window: 1_000_000,
  model_overrides: { "deepseek-v4-pro": { context_window: 500_000, max_output_tokens: 65536 } },
});
const gateway = provider({
  name: "gateway",
  base_url: "https://gw.example/v1",
  models: ["deepseek-v4-pro", "qwen3", "vendor/model-x"],
  context_window: 128_000,
  max_output_tokens: 8192,
  price: { cache_hit: 0.1, input: 1, output: 2, currency: "USD" },
  model_overrides: { qwen3: { price: { cache_hit: 0, input: 0.5, output: 1, currency: "CNY" } } },
});
const mirror = provider({ name: "mirror", base_url: "https://m.example", models: ["qwen3"] });
const open = provider({ name: "open", base_url: "http://localhost:8080" });

function config(providers: ProviderConfig[], default_model = "deepseek", from?: string): Config {
  return {
    default_model,
    default_model_from: from,
    agent: { max_turns: 100, compact_ratio: 0.8, reasoning_language: "auto" },
    providers,
    tools: {
      enabled: [],
      bash_timeout_seconds: 120,
      mcp_startup_timeout_seconds: 30,
      mcp_call_timeout_seconds: 300,
    },
    permissions: { mode: "ask", allow: [], ask: [], deny: [] },
    sandbox: { allow_write: [], forbid_read: [] },
    mcp: {},
    sources: [],
  };
}

function rejects(fn: () => unknown, ...parts: string[]): ConfigError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    for (const part of parts) assert.ok(err.message.includes(part), `${part}\n---\n${err.message}`);
    assert.match(err.message, /\nfix: /);
    return err;
  }
  return assert.fail("expected a ConfigError");
}

Deno.test("a provider name resolves to its default model, else its first model", () => {
  const c = config([deepseek, gateway]);
  assert.equal(resolveModel(c).model, "deepseek-v4-flash");
  assert.equal(resolveModel(c, "deepseek").provider, deepseek);
  const r = resolveModel(c, "gateway");
  assert.equal(r.provider, gateway);
  assert.equal(r.model, "deepseek-v4-pro");
});

Deno.test("provider/model needs a listed model unless the provider lists none", () => {
  const c = config([deepseek, gateway, open]);
  assert.equal(resolveModel(c, "gateway/qwen3").model, "qwen3");
  assert.equal(resolveModel(c, "open/anything-goes").model, "anything-goes");
  rejects(
    () => resolveModel(c, "deepseek/gpt-5"),
    'model "gpt-5" is not listed by provider "deepseek"',
    "deepseek/deepseek-v4-pro",
  );
});

Deno.test("a bare model name is found in any provider, the default provider first", () => {
  const c = config([gateway, deepseek], "deepseek");
  assert.equal(resolveModel(c, "deepseek-v4-pro").provider, deepseek);
  assert.equal(resolveModel(c, "deepseek-flash").provider, deepseek);
  const viaGateway = config([deepseek, gateway], "gateway/qwen3");
  assert.equal(resolveModel(viaGateway, "deepseek-v4-pro").provider, gateway);
});

Deno.test("a bare name offered only by one non-default provider picks it", () => {
  assert.equal(resolveModel(config([deepseek, gateway]), "qwen3").provider, gateway);
});

Deno.test("a name with a slash but no such provider is searched as a bare model", () => {
  const r = resolveModel(config([deepseek, gateway]), "vendor/model-x");
  assert.equal(r.provider, gateway);
  assert.equal(r.model, "vendor/model-x");
});

Deno.test("a bare name offered by several other providers is ambiguous", () => {
  rejects(
    () => resolveModel(config([deepseek, gateway, mirror]), "qwen3"),
    'model "qwen3" is ambiguous',
    "gateway/qwen3",
    "mirror/qwen3",
    "with --model",
  );
});

Deno.test("an unknown default_model names the available models and the file to edit", () => {
  const err = rejects(
    () => resolveModel(config([deepseek, open], "nope", "/home/u/.reasonix/config.toml")),
    'unknown model "nope"',
    "deepseek/deepseek-flash",
    "open/<any model>",
    "set default_model in /home/u/.reasonix/config.toml or pass --model provider/model",
  );
  assert.equal(err.file, "/home/u/.reasonix/config.toml");
  const located = rejects(
    () =>
      resolveModel({
        ...config([deepseek], "nope", "/home/u/.reasonix/config.toml"),
        default_model_line: 4,
      }),
    'unknown model "nope"',
  );
  assert.ok(located.message.startsWith("/home/u/.reasonix/config.toml:4: "), located.message);
});

Deno.test("an unknown --model says to pass --model", () => {
  const err = rejects(
    () => resolveModel(config([deepseek]), "missing"),
    'unknown model "missing"',
    "fix: pass --model provider/model, one of: deepseek/deepseek-flash",
  );
  assert.equal(err.file, undefined);
});

Deno.test("a provider without models or default cannot be picked by name alone", () => {
  rejects(() => resolveModel(config([open]), "open"), 'provider "open" lists no models');
});

Deno.test("model overrides win over provider limits", () => {
  const c = config([deepseek, gateway]);
  const pro = resolveModel(c, "deepseek/deepseek-v4-pro");
  assert.equal(pro.contextWindow, 500_000);
  assert.equal(pro.maxOutputTokens, 65536);
  const flash = resolveModel(c, "deepseek/deepseek-flash");
  assert.equal(flash.contextWindow, 1_000_000);
  assert.equal(flash.maxOutputTokens, 0);
});

Deno.test("price: model override, then provider price, then the built-in table", () => {
  const c = config([deepseek, gateway, open]);
  assert.deepEqual(resolveModel(c, "gateway/qwen3").price, {
    cache_hit: 0,
    input: 0.5,
    output: 1,
    currency: "CNY",
  });
  assert.equal(resolveModel(c, "gateway/deepseek-v4-pro").price?.input, 1);
  assert.deepEqual(resolveModel(c, "deepseek/deepseek-v4-pro").price, {
    cache_hit: 0.044,
    input: 1.32,
    output: 3.96,
    currency: "USD",
  });
  assert.equal(resolveModel(c, "deepseek/deepseek-flash").price?.output, 1.2);
  assert.equal(resolveModel(c, "open/deepseek-v4-pro").price, undefined);
});
