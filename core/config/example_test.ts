import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadConfig } from "./load.ts";
import { resolveModel } from "./resolve_model.ts";
import { configDirs } from "./test_helpers.ts";

const EXAMPLE = fileURLToPath(new URL("../../reasonix.example.toml", import.meta.url));

for (const layer of ["user", "project"] as const) {
  Deno.test(`reasonix.example.toml loads cleanly as the ${layer} config`, async () => {
    const dirs = await configDirs();
    try {
      const text = await Deno.readTextFile(EXAMPLE);
      await dirs.write(layer === "user" ? dirs.userConfig : dirs.projectConfig, text);
      const config = await loadConfig({
        cwd: dirs.cwd,
        home: dirs.home,
        env: {},
        knownKinds: ["anthropic", "openai"],
      });
      assert.deepEqual(config.warnings, []);
      assert.equal(config.default_model, "deepseek");
      assert.equal(config.agent.temperature, 0);
      assert.equal(config.agent.compact_ratio, 0.8);
      // The example restates the built-in default provider; the OpenAI preset stays built in.
      assert.deepEqual(config.providers.map((p) => p.name), ["deepseek", "deepseek-openai"]);
      assert.equal(config.providers[0].kind, "anthropic");
      assert.equal(config.providers[0].base_url, "https://api.deepseek.com/anthropic");
      assert.equal(config.providers[0].context_window, 1_000_000);
      assert.deepEqual(config.permissions.deny, ["Bash(rm -rf*)", "Bash(git push*)"]);
      // A project's allow rules loosen the default mode, so they wait for the user's trust.
      const allow = ["Bash(go test:*)", "Bash(git status:*)"];
      assert.deepEqual(config.permissions.allow, layer === "user" ? allow : []);
      assert.deepEqual(
        config.untrustedSettings?.content,
        layer === "user" ? undefined : { "permissions.allow": allow, "serve.auth_mode": "none" },
      );
      // So does a project's `[serve] auth_mode`: a repository must not switch logins off.
      assert.deepEqual(config.serve, layer === "user" ? { auth_mode: "none" } : {});
      const resolved = resolveModel(config);
      assert.equal(resolved.model, "deepseek-v4-flash");
      assert.equal(resolved.maxOutputTokens, 0);
    } finally {
      await dirs.cleanup();
    }
  });
}
