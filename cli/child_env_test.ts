import assert from "node:assert/strict";
import { childEnv } from "./child_env.ts";

Deno.test("child processes get the environment without provider keys and home .env names", () => {
  const out = childEnv({
    env: {
      PATH: "/usr/bin",
      HOME: "/home/u",
      DEEPSEEK_API_KEY: "sk-1",
      OPENAI_API_KEY: "sk-2",
      GITHUB_TOKEN: "ghp",
      NPM_TOKEN: "npm",
      UNSET: undefined,
    },
    config: {
      providers: [{ api_key_env: "DEEPSEEK_API_KEY" }, { api_key_env: "OPENAI_API_KEY" }, {}],
      tools: { pass_env: ["NPM_TOKEN"] },
    },
    homeEnv: { GITHUB_TOKEN: "ghp", NPM_TOKEN: "npm", ONLY_IN_FILE: "x" },
  });
  assert.deepEqual(out.env, { PATH: "/usr/bin", HOME: "/home/u", NPM_TOKEN: "npm" });
  assert.deepEqual(out.removed, ["DEEPSEEK_API_KEY", "GITHUB_TOKEN", "OPENAI_API_KEY"]);
  assert.ok(out.withheld.has("ONLY_IN_FILE"));
});

Deno.test("pass_env can keep a provider key for child processes", () => {
  const out = childEnv({
    env: { DEEPSEEK_API_KEY: "sk-1" },
    config: {
      providers: [{ api_key_env: "DEEPSEEK_API_KEY" }],
      tools: { pass_env: ["DEEPSEEK_API_KEY"] },
    },
    homeEnv: {},
  });
  assert.deepEqual(out.env, { DEEPSEEK_API_KEY: "sk-1" });
});
