import assert from "node:assert/strict";
import { ConfigError } from "./errors.ts";
import { applyFlags } from "./flags.ts";
import type { Config } from "./types.ts";

function base(): Config & { warnings: string[] } {
  return {
    default_model: "deepseek",
    default_model_from: "built-in defaults",
    agent: { max_turns: 100, compact_ratio: 0.8, reasoning_language: "auto" },
    providers: [],
    tools: {
      enabled: [],
      bash_timeout_seconds: 120,
      mcp_startup_timeout_seconds: 30,
      mcp_call_timeout_seconds: 300,
    },
    permissions: { mode: "ask", allow: ["Read"], ask: [], deny: ["Bash(rm -rf*)"] },
    sandbox: { allow_write: [], forbid_read: [] },
    mcp: {},
    sources: [],
    warnings: ["kept"],
  };
}

Deno.test("applyFlags overrides model, turns and mode and adds rules", () => {
  const config = base();
  const out = applyFlags(config, {
    model: " deepseek/deepseek-v4-pro ",
    maxTurns: 7,
    permissionMode: "auto",
    allow: ["Bash(go test:*)", "Read"],
    deny: ["Bash(git push*)"],
  });
  assert.equal(out.default_model, "deepseek/deepseek-v4-pro");
  assert.equal(out.default_model_from, "--model");
  assert.equal(out.agent.max_turns, 7);
  assert.equal(out.permissions.mode, "auto");
  assert.deepEqual(out.permissions.allow, ["Read", "Bash(go test:*)"]);
  assert.deepEqual(out.permissions.deny, ["Bash(rm -rf*)", "Bash(git push*)"]);
  assert.deepEqual(out.warnings, ["kept"]);
  // The input is untouched.
  assert.equal(config.default_model, "deepseek");
  assert.deepEqual(config.permissions.deny, ["Bash(rm -rf*)"]);
});

Deno.test("applyFlags without flags returns an equal copy", () => {
  const config = base();
  assert.deepEqual(applyFlags(config, {}), config);
});

Deno.test("applyFlags rejects invalid flag values with a fix", () => {
  for (
    const flags of [{ maxTurns: 0 }, { maxTurns: 2.5 }, { model: " " }, { permissionMode: "" }]
  ) {
    assert.throws(
      () => applyFlags(base(), flags),
      (err: unknown) => err instanceof ConfigError && /\nfix: /.test(err.message),
      JSON.stringify(flags),
    );
  }
});
