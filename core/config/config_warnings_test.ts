/**
 * The warnings and errors that turn a configuration typo into its fix: "did you mean" for
 * unknown keys and tables, options no kind reads, a base_url that ends in the request path, a
 * suggested context_window, and a key put into api_key_env that is never shown.
 */
import "../../providers/builtin_kinds.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "./errors.ts";
import { loadConfig, type LoadedConfig } from "./load.ts";
import { knownContextWindow } from "./known_models.ts";
import { providerFromConfig } from "./provider_setup.ts";
import { resolveModel } from "./resolve_model.ts";
import { resolveApiKey } from "./api_key.ts";
import { type ConfigDirs, configDirs } from "./test_helpers.ts";

async function withConfig(
  text: string,
  fn: (load: () => Promise<LoadedConfig>, dirs: ConfigDirs) => Promise<void>,
): Promise<void> {
  const dirs = await configDirs();
  try {
    await dirs.write(dirs.userConfig, text);
    await fn(() => loadConfig({ cwd: dirs.cwd, home: dirs.home, env: {} }), dirs);
  } finally {
    await dirs.cleanup();
  }
}

async function configError(promise: Promise<unknown> | (() => unknown)): Promise<ConfigError> {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  return assert.fail("expected a ConfigError");
}

const MOCK = `[[providers]]
name = "mock"
kind = "openai"
base_url = "http://127.0.0.1:1/v1"
models = ["mock"]
context_window = 1000
`;

Deno.test("[[provider]] is reported with its line and the [[providers]] it misspells", async () => {
  await withConfig(
    `default_model = "mock"\n\n${MOCK.replace("[[providers]]", "[[provider]]")}`,
    async (load, dirs) => {
      const config = await load();
      const warning = `${dirs.userConfig}:3: unknown table [[provider]] is ignored; did you mean ` +
        `[[providers]]?`;
      assert.deepEqual(config.warnings, [warning]);
      // The unknown model it leads to says why.
      const error = await configError(() => resolveModel(config));
      assert.match(error.message, /unknown model "mock"/);
      assert.deepEqual(error.notes, [warning]);
      assert.ok(error.message.endsWith(`\nnote: ${warning}`), error.message);
    },
  );
});

Deno.test("unknown tables and keys suggest the known one of the same table", async () => {
  await withConfig(
    `[agnet]\nmax_turns = 3\n[tools]\nbash_timeout = 5\n[permissions]\nmodee = "ask"\n` +
      `[[providers]]\nname = "deepseek"\n[providers.model_overrides.m]\ncontext_windw = 5\n`,
    async (load, dirs) => {
      const config = await load();
      assert.deepEqual(config.warnings, [
        `${dirs.userConfig}:1: unknown table [agnet] is ignored; did you mean [agent]?`,
        `${dirs.userConfig}:4: unknown key "tools.bash_timeout" is ignored`,
        `${dirs.userConfig}:6: unknown key "permissions.modee" is ignored; did you mean ` +
        `"permissions.mode"?`,
        `${dirs.userConfig}:10: unknown key "model_overrides.m.context_windw" in [[providers]] ` +
        `"deepseek" is ignored; did you mean "model_overrides.m.context_window"?`,
      ]);
    },
  );
});

Deno.test("a misspelt provider key is dropped with a warning, not passed on as an option", async () => {
  await withConfig(
    `default_model = "mock"\n${MOCK.replace("base_url", "base_ur")}`,
    async (load, dirs) => {
      const config = await load();
      const warning = `${dirs.userConfig}:5: unknown key "base_ur" in [[providers]] "mock" is ` +
        `ignored; did you mean "base_url"?`;
      assert.deepEqual(config.warnings, [warning]);
      const mock = config.providers.find((p) => p.name === "mock")!;
      assert.deepEqual(mock.options, {});
      // The missing endpoint it leads to names the typo and says what base_url is.
      const error = await configError(() =>
        providerFromConfig(mock, { name: "mock", model: "mock", options: mock.options })
      );
      assert.match(error.message, /\[\[providers\]\] "mock" \(kind "openai"\) has no endpoint/);
      assert.match(error.fix ?? "", /add base_url = .*Reasonix appends \/chat\/completions/);
      assert.deepEqual(error.notes, [warning]);
    },
  );
});

Deno.test("options the provider's kind does not read are warnings, and dropped", async () => {
  await withConfig(
    `${MOCK}thinking = "enabled"\nmax_tokens_field = "max_completion_tokens"\nimages = true\n` +
      `[providers.options]\nreasoning_summery = "auto"\n`,
    async (load, dirs) => {
      const config = await load();
      const mock = config.providers.find((p) => p.name === "mock")!;
      assert.deepEqual(mock.options, { max_tokens_field: "max_completion_tokens", images: true });
      assert.equal(config.warnings.length, 2, config.warnings.join("\n"));
      assert.ok(
        config.warnings[0].startsWith(
          `${dirs.userConfig}:7: unknown key "thinking" in [[providers]] "mock" is ignored: ` +
            `kind "openai" reads no such option (it reads max_tokens_field, images`,
        ),
        config.warnings[0],
      );
      assert.match(config.warnings[1], /:11: unknown key "reasoning_summery" in \[\[providers\]\]/);
    },
  );
});

Deno.test("a base_url that ends in the request path is used once, with one warning", async () => {
  await withConfig(
    MOCK.replace(
      'base_url = "http://127.0.0.1:1/v1"',
      'base_url = "http://127.0.0.1:1/v1/chat/completions/"',
    ),
    async (load, dirs) => {
      const config = await load();
      const mock = config.providers.find((p) => p.name === "mock")!;
      assert.equal(mock.base_url, "http://127.0.0.1:1/v1");
      assert.equal(mock.request_url, undefined);
      assert.deepEqual(config.warnings, [
        `${dirs.userConfig}:4: base_url in [[providers]] "mock" ends in /chat/completions, the ` +
        `path Reasonix appends itself; using http://127.0.0.1:1/v1 as the base, so requests go ` +
        `to http://127.0.0.1:1/v1/chat/completions. Set base_url = "http://127.0.0.1:1/v1" to ` +
        `silence this warning`,
      ]);
    },
  );
  // The Anthropic path, with or without its /v1, and a query string the path cannot follow.
  await withConfig(
    MOCK.replace('kind = "openai"', 'kind = "anthropic"')
      .replace("http://127.0.0.1:1/v1", "https://gw.example/anthropic/v1/messages"),
    async (load) => {
      const mock = (await load()).providers.find((p) => p.name === "mock")!;
      assert.equal(mock.base_url, "https://gw.example/anthropic");
    },
  );
  await withConfig(
    MOCK.replace("http://127.0.0.1:1/v1", "https://gw.example/v1/chat/completions?api-version=2"),
    async (load) => {
      const config = await load();
      const mock = config.providers.find((p) => p.name === "mock")!;
      assert.equal(mock.request_url, "https://gw.example/v1/chat/completions?api-version=2");
      assert.equal(mock.source?.endpoint_from.request_url?.line, 4);
      assert.equal(config.warnings.length, 1);
    },
  );
  // An ordinary base is left alone.
  await withConfig(MOCK, async (load) => {
    const config = await load();
    assert.deepEqual(config.warnings, []);
    assert.equal(
      config.providers.find((p) => p.name === "mock")!.base_url,
      "http://127.0.0.1:1/v1",
    );
  });
});

Deno.test("a missing context_window suggests the documented window of a known model", async () => {
  await withConfig(
    MOCK.replace('models = ["mock"]', 'models = ["gpt-5.5", "openai/gpt-4o"]')
      .replace("context_window = 1000\n", ""),
    async (load) => {
      const error = await configError(load());
      assert.match(error.message, /\[\[providers\]\] "mock" has no context_window/);
      assert.match(
        error.fix ?? "",
        /^add context_window = 128000 \(the documented window of openai\/gpt-4o\) to \[\[providers\]\] "mock"; a model with a larger window/,
      );
    },
  );
  await withConfig(MOCK.replace("context_window = 1000\n", ""), async (load) => {
    const error = await configError(load());
    assert.match(error.fix ?? "", /^add context_window = <tokens>/);
  });
  assert.equal(knownContextWindow("claude-haiku-4-5-20251001"), 200_000);
  assert.equal(knownContextWindow("deepseek/deepseek-v4-pro"), 1_000_000);
  assert.equal(knownContextWindow("Kimi-K2.6"), 262_144);
  assert.equal(knownContextWindow("mock"), undefined);
});

Deno.test("a key put into api_key_env is never repeated in the error", async () => {
  for (
    const key of [
      "sk-abcdefghijklmnopqrstuvwxyz123456",
      "abcdefghijklmnopqrstuvwxyz123456",
      "sk_live_0123456789",
    ]
  ) {
    await withConfig(`${MOCK}api_key_env = "${key}"\n`, async (load, dirs) => {
      const error = await configError(load());
      assert.ok(!error.message.includes(key), error.message);
      assert.equal(error.file, dirs.userConfig);
      assert.equal(error.line, 7);
      assert.match(error.message, /not the key itself \(the value is not shown\)/);
      assert.match(
        error.fix ?? "",
        new RegExp(
          `put the key in ${
            join(dirs.home, ".env").replaceAll(".", "\\.")
          } as MOCK_API_KEY=<your key>`,
        ),
      );
    });
  }
  // A provider built in code skips the loader; resolving its key still never echoes it.
  const key = "abcdefghijklmnopqrstuvwxyz123456";
  const error = await configError(resolveApiKey({
    name: "p",
    kind: "openai",
    models: [],
    api_key_env: key,
    context_window: 1,
    max_output_tokens: 0,
    model_overrides: {},
    headers: {},
    options: {},
  }, { env: {}, home: "/nonexistent" }));
  assert.ok(!error.message.includes(key), error.message);
  // Ordinary variable names are fine.
  await withConfig(`${MOCK}api_key_env = "OPENROUTER_API_KEY_2"\n`, async (load) => {
    assert.equal(
      (await load()).providers.find((p) => p.name === "mock")!.api_key_env,
      "OPENROUTER_API_KEY_2",
    );
  });
});
