// Importing the built-in kinds registers them, as the CLI does before loading the configuration.
import "../../providers/builtin_kinds.ts";
import assert from "node:assert/strict";
import { ConfigError } from "./errors.ts";
import { loadConfig } from "./load.ts";
import { configDirs } from "./test_helpers.ts";

Deno.test("loadConfig takes the known kinds from the provider registry by default", async () => {
  const dirs = await configDirs();
  try {
    const config = await loadConfig({ cwd: dirs.cwd, home: dirs.home, env: {} });
    assert.deepEqual(config.providers.map((p) => p.kind), ["anthropic", "openai"]);

    await dirs.write(
      dirs.userConfig,
      `[[providers]]\nname = "x"\nkind = "no-such-kind"\ncontext_window = 1\n`,
    );
    await assert.rejects(
      loadConfig({ cwd: dirs.cwd, home: dirs.home, env: {} }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.includes(
          'unknown kind "no-such-kind" (known kinds: anthropic, openai, replay, responses)',
        ),
    );
  } finally {
    await dirs.cleanup();
  }
});
