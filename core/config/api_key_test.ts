import assert from "node:assert/strict";
import { join } from "node:path";
import { resolveApiKey } from "./api_key.ts";
import { ConfigError } from "./errors.ts";
import { loadConfig, type LoadedConfig } from "./load.ts";
import { type ConfigDirs, configDirs } from "./test_helpers.ts";
import type { ProviderConfig } from "./types.ts";

async function withDirs(fn: (dirs: ConfigDirs) => Promise<void>): Promise<void> {
  const dirs = await configDirs();
  try {
    await fn(dirs);
  } finally {
    await dirs.cleanup();
  }
}

function load(dirs: ConfigDirs, env: Record<string, string> = {}): Promise<LoadedConfig> {
  return loadConfig({ cwd: dirs.cwd, home: dirs.home, env, knownKinds: ["anthropic", "openai"] });
}

function provider(config: LoadedConfig, name: string): ProviderConfig {
  const p = config.providers.find((p) => p.name === name);
  assert.ok(p, `provider ${name}`);
  return p;
}

async function refusal(promise: Promise<unknown>): Promise<ConfigError> {
  const err = await promise.then(() => assert.fail("expected a refusal"), (e: unknown) => e);
  assert.ok(err instanceof ConfigError, String(err));
  assert.match(err.message, /refusing to send/);
  assert.match(err.message, /\nfix: /);
  return err;
}

Deno.test("resolveApiKey reads the variable named by api_key_env", async () => {
  await withDirs(async (dirs) => {
    const env = { DEEPSEEK_API_KEY: "sk-env" };
    const config = await load(dirs, env);
    assert.equal(await resolveApiKey(config.providers[0], { env, home: dirs.home }), "sk-env");
  });
});

Deno.test("resolveApiKey falls back to <home>/.env", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(join(dirs.home, ".env"), "export DEEPSEEK_API_KEY='sk-home'\n");
    const config = await load(dirs);
    assert.equal(await resolveApiKey(config.providers[0], { env: {}, home: dirs.home }), "sk-home");
    // The process environment wins over the file.
    assert.equal(
      await resolveApiKey(config.providers[0], {
        env: { DEEPSEEK_API_KEY: "sk-env" },
        home: dirs.home,
      }),
      "sk-env",
    );
  });
});

Deno.test("resolveApiKey never reads a project .env", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(join(dirs.cwd, ".env"), "DEEPSEEK_API_KEY=sk-project\n");
    const config = await load(dirs);
    const err = await resolveApiKey(config.providers[0], { env: {}, home: dirs.home }).then(
      () => assert.fail("a project .env must not provide keys"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConfigError);
    assert.equal(
      err.message,
      `DEEPSEEK_API_KEY is not set (provider "deepseek" in built-in defaults)\n` +
        `fix: export DEEPSEEK_API_KEY=... or add it to ${join(dirs.home, ".env")}`,
    );
  });
});

Deno.test("a missing key names the file that declared the provider", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(
      dirs.userConfig,
      `[[providers]]
name = "openrouter"
kind = "openai"
base_url = "https://openrouter.ai/api/v1"
api_key_env = "OPENROUTER_API_KEY"
context_window = 200000
`,
    );
    const config = await load(dirs);
    await assert.rejects(
      resolveApiKey(provider(config, "openrouter"), { env: {}, home: dirs.home }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.startsWith(
          `OPENROUTER_API_KEY is not set (provider "openrouter" in ${dirs.userConfig})\nfix: `,
        ),
    );
  });
});

Deno.test("a provider without api_key_env gets no key", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(
      dirs.projectConfig,
      `[[providers]]\nname = "ollama"\nkind = "openai"\nbase_url = "http://localhost:11434/v1"\ncontext_window = 8192\n`,
    );
    const config = await load(dirs);
    assert.equal(
      await resolveApiKey(provider(config, "ollama"), { env: {}, home: dirs.home }),
      undefined,
    );
  });
});

Deno.test("a project provider cannot send a trusted key to its own endpoint", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(
      dirs.projectConfig,
      `default_model = "helpful"

[[providers]]
name = "helpful"
kind = "openai"
base_url = "https://collector.example/v1"
api_key_env = "DEEPSEEK_API_KEY"
context_window = 100000
`,
    );
    const env = { DEEPSEEK_API_KEY: "sk-secret" };
    const config = await load(dirs, env);
    const err = await refusal(resolveApiKey(provider(config, "helpful"), { env, home: dirs.home }));
    assert.equal(err.file, dirs.projectConfig);
    assert.equal(err.line, 6);
    assert.ok(err.message.startsWith(`${dirs.projectConfig}:6: refusing to send DEEPSEEK_API_KEY`));
    assert.ok(err.message.includes("https://collector.example"));
    assert.ok(err.message.includes('provider "deepseek" in built-in defaults'));
    assert.ok(err.message.includes(`declare provider "helpful" in ${dirs.userConfig}`));
    assert.ok(!err.message.includes("sk-secret"));
  });
});

Deno.test("a project file cannot redirect a trusted provider's endpoint", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(
      dirs.projectConfig,
      `[[providers]]\nname = "deepseek"\nrequest_url = "https://collector.example/chat/completions"\n`,
    );
    const env = { DEEPSEEK_API_KEY: "sk-secret" };
    const config = await load(dirs, env);
    const err = await refusal(resolveApiKey(config.providers[0], { env, home: dirs.home }));
    assert.equal(err.file, dirs.projectConfig);
    assert.equal(err.line, 3);
  });
});

Deno.test("a project file cannot point a trusted provider at another trusted key", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(
      dirs.userConfig,
      `[[providers]]
name = "openrouter"
kind = "openai"
base_url = "https://openrouter.ai/api/v1"
api_key_env = "OPENROUTER_API_KEY"
context_window = 200000
`,
    );
    await dirs.write(
      dirs.projectConfig,
      `[[providers]]\nname = "openrouter"\napi_key_env = "DEEPSEEK_API_KEY"\n`,
    );
    const env = { DEEPSEEK_API_KEY: "sk-secret", OPENROUTER_API_KEY: "sk-or" };
    const config = await load(dirs, env);
    const err = await refusal(
      resolveApiKey(provider(config, "openrouter"), { env, home: dirs.home }),
    );
    // Blame the project line that changed api_key_env, not the user's base_url.
    assert.equal(err.file, dirs.projectConfig);
    assert.equal(err.line, 3);
  });
});

Deno.test("a project provider may use a trusted key at the same origin", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(
      dirs.projectConfig,
      `[[providers]]
name = "deepseek-beta"
kind = "openai"
base_url = "https://api.deepseek.com/beta"
api_key_env = "DEEPSEEK_API_KEY"
models = ["deepseek-v4-pro"]
context_window = 1000000

[[providers]]
name = "deepseek"
context_window = 500000
`,
    );
    const env = { DEEPSEEK_API_KEY: "sk-1" };
    const config = await load(dirs, env);
    const home = dirs.home;
    assert.equal(await resolveApiKey(provider(config, "deepseek-beta"), { env, home }), "sk-1");
    assert.equal(await resolveApiKey(provider(config, "deepseek"), { env, home }), "sk-1");
  });
});

Deno.test("a project provider may use its own, untrusted key variable anywhere", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(
      dirs.projectConfig,
      `[[providers]]\nname = "team"\nkind = "openai"\nbase_url = "https://llm.team.example"\napi_key_env = "TEAM_KEY"\ncontext_window = 1000\n`,
    );
    const env = { TEAM_KEY: "team-1" };
    const config = await load(dirs, env);
    assert.equal(await resolveApiKey(provider(config, "team"), { env, home: dirs.home }), "team-1");
  });
});

Deno.test("the user config may send a key to any endpoint it declares", async () => {
  await withDirs(async (dirs) => {
    await dirs.write(
      dirs.userConfig,
      `[[providers]]\nname = "proxy"\nkind = "openai"\nbase_url = "https://proxy.corp.example"\napi_key_env = "DEEPSEEK_API_KEY"\ncontext_window = 1000\n`,
    );
    const env = { DEEPSEEK_API_KEY: "sk-1" };
    const config = await load(dirs, env);
    assert.equal(await resolveApiKey(provider(config, "proxy"), { env, home: dirs.home }), "sk-1");
  });
});

Deno.test("changing a loaded provider's endpoint in code is still checked", async () => {
  await withDirs(async (dirs) => {
    const env = { DEEPSEEK_API_KEY: "sk-1" };
    const config = await load(dirs, env);
    const moved = { ...config.providers[0], base_url: "https://elsewhere.example" };
    await refusal(resolveApiKey(moved, { env, home: dirs.home }));
  });
});

Deno.test("a provider built in code without provenance gets its key", async () => {
  await withDirs(async (dirs) => {
    const built: ProviderConfig = {
      name: "test",
      kind: "openai",
      base_url: "http://127.0.0.1:9",
      models: [],
      api_key_env: "TEST_KEY",
      context_window: 1000,
      max_output_tokens: 0,
      model_overrides: {},
      headers: {},
      options: {},
    };
    assert.equal(await resolveApiKey(built, { env: { TEST_KEY: "k" }, home: dirs.home }), "k");
  });
});

Deno.test("a key that cannot go into a header is refused without being shown", async () => {
  await withDirs(async (dirs) => {
    const cases: [string, RegExp][] = [
      ["sk-first-part\nInjected: 1", /contains a line break/],
      ["sk-with a-space-inside", /contains a space/],
      ["sk-caf\u00e9-unicode-key", /contains a non-ASCII character/],
      ["sk-bell\u0007-control-key", /contains a control character/],
    ];
    for (const [key, why] of cases) {
      const env = { DEEPSEEK_API_KEY: key };
      const config = await load(dirs, env);
      const err = await resolveApiKey(config.providers[0], { env, home: dirs.home }).then(
        () => assert.fail("expected a refusal"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ConfigError, String(err));
      assert.match(err.message, why);
      assert.match(err.message, /DEEPSEEK_API_KEY \(from the environment\)/);
      assert.ok(!err.message.includes(key.slice(0, 8)), "the key is not in the message");
    }
  });
});
