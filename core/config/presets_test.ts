import assert from "node:assert/strict";
import { parse } from "smol-toml";
import { builtinDefaults } from "./defaults.ts";
import { knownContextWindow, PROVIDER_PRESETS, providerPreset } from "./presets.ts";
import { setRootValue, upsertArrayTable } from "./toml_edit.ts";
import { hasProviderKind } from "../../providers/registry.ts";
import "../../providers/builtin_kinds.ts";

Deno.test("every preset names a registered kind, and hosted ones an endpoint and a key", () => {
  const ids = new Set<string>();
  for (const preset of PROVIDER_PRESETS) {
    assert.ok(!ids.has(preset.id), `duplicate preset ${preset.id}`);
    ids.add(preset.id);
    assert.ok(hasProviderKind(preset.kind), `${preset.id}: kind ${preset.kind}`);
    if (preset.group !== "generic") assert.ok(preset.base_url, `${preset.id}: base_url`);
    if (preset.group === "hosted") assert.match(preset.api_key_env ?? "", /^[A-Z_]+$/);
    if (preset.group === "local") {
      assert.equal(preset.needs_key, false);
      assert.ok(preset.fallback_context_window! > 0);
    }
    if (preset.default_model && Object.keys(preset.models).length > 0) {
      assert.ok(preset.models[preset.default_model], `${preset.id}: default has a window`);
    }
  }
});

Deno.test("the DeepSeek presets are the built-in providers, not a copy", () => {
  for (const builtin of builtinDefaults().providers!) {
    const preset = PROVIDER_PRESETS.find((p) => p.builtin && p.provider === builtin.name)!;
    assert.equal(preset.base_url, builtin.base_url);
    assert.equal(preset.kind, builtin.kind);
    assert.equal(preset.api_key_env, builtin.api_key_env);
    assert.deepEqual(Object.keys(preset.models), builtin.models);
  }
  assert.equal(providerPreset("deepseek")?.kind, "anthropic");
  assert.equal(providerPreset("deepseek-openai")?.kind, "openai");
});

Deno.test("known context windows ignore a gateway prefix and a date suffix", () => {
  assert.equal(knownContextWindow("gpt-5.5"), 1_050_000);
  assert.equal(knownContextWindow("openai/gpt-5.5"), 1_050_000);
  assert.equal(knownContextWindow("claude-haiku-4-5-20251001"), 200_000);
  assert.equal(knownContextWindow("deepseek-v4-pro"), 1_000_000);
  assert.equal(knownContextWindow("no-such-model"), undefined);
});

const USER = `# my settings
# (kept by hand)

[agent]
compact_ratio = 0.7 # early

# the gateway at work
[[providers]]
name = "work"
kind = "openai"
base_url = "https://gw.example/v1"
context_window = 64000

[providers.price]
input = 1
output = 2
cache_hit = 0.1
currency = "USD"

# the local one
[[providers]]
name = "local"
kind = "openai"
base_url = "http://localhost:1/v1"
context_window = 8000
`;

Deno.test("setRootValue adds a top-level key above the first table and its comments", () => {
  const out = setRootValue(USER, { key: "default_model", literal: '"openai"' });
  assert.equal(out, USER.replace("[agent]", 'default_model = "openai"\n\n[agent]'));
  const described = "# the agent\n[agent]\nmax_turns = 3\n";
  assert.equal(
    setRootValue(described, { key: "a", literal: "1" }),
    `a = 1\n\n${described}`,
  );
  const again = setRootValue(out, { key: "default_model", literal: '"local"' });
  assert.equal(again, out.replace('"openai"', '"local"'));
  assert.equal(setRootValue("", { key: "a", literal: "1" }), "a = 1\n");
  assert.equal(setRootValue("b = 2 # two\n", { key: "a", literal: "1" }), "b = 2 # two\na = 1\n");
});

Deno.test("upsertArrayTable appends a new element and replaces only a matching one", () => {
  const block = '[[providers]]\nname = "openai"\nkind = "responses"\ncontext_window = 400000\n';
  const appended = upsertArrayTable(USER, {
    array: "providers",
    match: { key: "name", value: "openai" },
    block,
  });
  assert.equal(appended, `${USER}\n${block}`);

  const replaced = upsertArrayTable(USER, {
    array: "providers",
    match: { key: "name", value: "work" },
    block: '[[providers]]\nname = "work"\nkind = "anthropic"\ncontext_window = 1000\n',
  });
  assert.match(
    replaced,
    /# the gateway at work\n\[\[providers\]\]\nname = "work"\nkind = "anthropic"/,
  );
  assert.match(replaced, /# the local one\n\[\[providers\]\]\nname = "local"/);
  assert.match(replaced, /compact_ratio = 0.7 # early/);
  const doc = parse(replaced) as { providers: Record<string, unknown>[] };
  assert.equal(doc.providers.length, 2);
  assert.equal(doc.providers[0].price, undefined, "the old element's sub-table went with it");
  assert.equal(doc.providers[1].name, "local");
});
