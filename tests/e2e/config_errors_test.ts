/**
 * End to end: configuration typos through the real CLI (`deno task reasonix run`). Each
 * message names the file and line and the key that was meant, and a key put into
 * `api_key_env` is never printed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { makeRepo, runReasonix } from "./support.ts";

/** A home whose config.toml is `toml`, and an empty repository to run in. */
async function withHome(
  toml: string,
  fn: (dirs: { home: string; repo: string; config: string }) => Promise<void>,
): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-home-" });
  const repo = await makeRepo({ "README.md": "hello\n" });
  const config = join(home, "config.toml");
  await Deno.writeTextFile(config, toml);
  try {
    await fn({ home, repo, config });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(repo, { recursive: true });
  }
}

const provider = (baseUrl: string) =>
  `[[providers]]
name = "mock"
kind = "openai"
base_url = "${baseUrl}"
models = ["mock"]
api_key_env = "REASONIX_E2E_KEY"
context_window = 128000
`;

Deno.test("reasonix run names [[provider]] as the typo behind an unknown model", async () => {
  const toml = `default_model = "mock"\n\n${provider("http://127.0.0.1:1/v1")}`
    .replace("[[providers]]", "[[provider]]");
  await withHome(toml, async ({ home, repo, config }) => {
    const result = await runReasonix(["run", "hi"], { cwd: repo, home });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /unknown model "mock"/);
    assert.ok(
      result.stderr.includes(
        `${config}:3: unknown table [[provider]] is ignored; did you mean [[providers]]?`,
      ),
      result.stderr,
    );
  });
});

Deno.test("reasonix run suggests base_url for base_ur and says what base_url is", async () => {
  const toml = `default_model = "mock"\n${provider("http://127.0.0.1:1/v1")}`
    .replace("base_url", "base_ur");
  await withHome(toml, async ({ home, repo, config }) => {
    const result = await runReasonix(["run", "hi"], { cwd: repo, home });
    assert.equal(result.code, 2, result.stderr);
    assert.ok(
      result.stderr.includes(
        `${config}:5: unknown key "base_ur" in [[providers]] "mock" is ignored; did you mean ` +
          `"base_url"?`,
      ),
      result.stderr,
    );
    assert.match(result.stderr, /\nfix: add base_url = "https:\/\/…" to \[\[providers\]\] "mock"/);
    assert.doesNotMatch(result.stderr, /kind-specific option/);
  });
});

Deno.test("reasonix run warns about an unknown key with file, line and suggestion, and runs", async () => {
  const fake = await startFakeLlm({ script: [{ text: "Hello." }] });
  const toml = `default_model = "mock"\n${provider(fake.url)}[agent]\nmax_turn = 3\n`;
  try {
    await withHome(toml, async ({ home, repo, config }) => {
      const result = await runReasonix(["run", "hi"], { cwd: repo, home });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Hello\./);
      assert.ok(
        result.stderr.includes(
          `warning: ${config}:10: unknown key "agent.max_turn" is ignored; did you mean ` +
            `"agent.max_turns"?`,
        ),
        result.stderr,
      );
    });
  } finally {
    await fake.close();
  }
});

Deno.test("reasonix run never prints a key put into api_key_env", async () => {
  const key = "sk-e2eSecretKey0123456789abcdef";
  const toml = `default_model = "mock"\n${provider("http://127.0.0.1:1/v1")}`
    .replace('"REASONIX_E2E_KEY"', `"${key}"`);
  await withHome(toml, async ({ home, repo, config }) => {
    for (const args of [["run", "hi"], ["run", "--json", "hi"]]) {
      const result = await runReasonix(args, { cwd: repo, home });
      assert.equal(result.code, 2, result.stderr);
      assert.ok(!result.stderr.includes(key) && !result.stdout.includes(key), result.stderr);
      assert.ok(result.stderr.includes(`${config}:7:`), result.stderr);
      assert.match(result.stderr, /not the key itself \(the value is not shown\)/);
      assert.match(result.stderr, /fix: put the key in .*\.env as MOCK_API_KEY=<your key>/);
    }
  });
});
