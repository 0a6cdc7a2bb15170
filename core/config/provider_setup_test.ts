import assert from "node:assert/strict";
import "../../providers/builtin_kinds.ts";
import { ProviderOptionError } from "../../providers/errors.ts";
import { ConfigError } from "./errors.ts";
import { loadConfig } from "./load.ts";
import { providerFromConfig } from "./provider_setup.ts";
import { configDirs } from "./test_helpers.ts";
import type { ProviderConfig } from "./types.ts";

const KINDS = ["anthropic", "openai", "replay"];

/** Loads `toml` as the project config and returns the provider named `name`. */
async function providerIn(toml: string, name: string): Promise<ProviderConfig> {
  const dirs = await configDirs();
  try {
    await dirs.write(dirs.projectConfig, toml);
    const config = await loadConfig({
      cwd: dirs.cwd,
      home: dirs.home,
      env: {},
      knownKinds: KINDS,
    });
    return config.providers.find((p) => p.name === name)!;
  } finally {
    await dirs.cleanup();
  }
}

function build(config: ProviderConfig): unknown {
  return providerFromConfig(config, {
    name: config.name,
    model: "m",
    baseUrl: config.base_url,
    options: config.options,
  });
}

function configError(config: ProviderConfig): ConfigError {
  try {
    build(config);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, got ${error}`);
    return error;
  }
  assert.fail("expected a ConfigError");
}

Deno.test("a bad option value names its file, line, value and the accepted values", async () => {
  const config = await providerIn(
    `[[providers]]
name = "mine"
kind = "anthropic"
base_url = "https://example.test"
context_window = 1000
thinking = "on"
`,
    "mine",
  );
  const error = configError(config);
  assert.match(error.file!, /reasonix\.toml$/);
  assert.equal(error.line, 6);
  assert.equal(error.code, "config_invalid");
  assert.match(error.problem, /^thinking = "on" in \[\[providers\]\] "mine" is not accepted/);
  assert.equal(error.fix, 'set thinking to "enabled" or "disabled", or remove it');
  assert.ok(error.cause instanceof ProviderOptionError);
});

Deno.test("an option inside an options table is located there", async () => {
  const config = await providerIn(
    `[[providers]]
name = "compat"
kind = "openai"
base_url = "https://example.test"
context_window = 1000

[providers.options]
max_tokens_field = "tokens"
`,
    "compat",
  );
  const error = configError(config);
  assert.equal(error.line, 8);
  assert.match(error.message, /reasonix\.toml:8: max_tokens_field = "tokens"/);
});

Deno.test("a missing required option says what to set", async () => {
  const config = await providerIn(
    `[[providers]]
name = "rec"
kind = "replay"
context_window = 1000
`,
    "rec",
  );
  const error = configError(config);
  assert.equal(error.line, 1, "the provider's table, as the option is nowhere");
  assert.match(error.problem, /"rec" \(kind "replay"\) needs file/);
  assert.match(error.fix!, /^set file to the path of a recording/);
});

Deno.test("accepted options build the provider", async () => {
  const config = await providerIn(
    `[[providers]]
name = "mine"
kind = "anthropic"
base_url = "https://example.test"
context_window = 1000
thinking = "disabled"
`,
    "mine",
  );
  assert.equal((build(config) as { name: string }).name, "mine");
});
