/**
 * End to end: `reasonix run --record` against the fake Anthropic-format server, then the same
 * task replayed through a `kind = "replay"` provider with no server at all.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { makeRepo, runReasonix } from "./support.ts";

Deno.test("a recorded run replays to the same result without a server", async () => {
  const fake = await startFakeLlm({
    format: "anthropic",
    script: [
      {
        reasoning: "Look at the file first.",
        toolCalls: [{ name: "read_file", arguments: '{"path":"notes.txt"}' }],
      },
      { status: 529 },
      { text: "The notes say: ship it 🚀." },
    ],
  });
  const repo = await makeRepo({ "notes.txt": "ship it\n" });
  const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-home-" });
  const recording = join(home, "run.jsonl");
  await Deno.writeTextFile(
    join(home, "config.toml"),
    `default_model = "fake"

[[providers]]
name = "fake"
kind = "anthropic"
base_url = "${fake.url}"
models = ["fake-model"]
api_key_env = "REASONIX_E2E_KEY"
context_window = 128000

[[providers]]
name = "replayed"
kind = "replay"
file = "${recording}"
models = ["fake-model"]
context_window = 128000
`,
  );
  try {
    const task = ["run", "--json", "--permission-mode", "auto"];
    const live = await runReasonix([...task, "--record", recording, "what do the notes say?"], {
      cwd: repo,
      home,
    });
    assert.equal(live.code, 0, live.stderr);
    await fake.close();
    const text = await Deno.readTextFile(recording);
    assert.ok(!text.includes("sk-e2e-test"), "the key is redacted");
    assert.match(text, /"x-api-key":"\[redacted\]"/);

    const replay = await runReasonix([...task, "--model", "replayed", "what do the notes say?"], {
      cwd: repo,
      home,
    });
    assert.equal(replay.code, 0, replay.stderr);
    const [a, b] = [JSON.parse(live.stdout), JSON.parse(replay.stdout)];
    assert.equal(a.result, "The notes say: ship it 🚀.");
    for (const key of ["status", "result", "turns", "tool_calls", "tokens"]) {
      assert.deepEqual(b[key], a[key], key);
    }
    assert.equal(fake.requests.length, 3, "the replay sent nothing");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
