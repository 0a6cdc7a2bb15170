/**
 * Issue 13, point 7, through the real host: a session whose window fills turn by turn sends the
 * same Anthropic `thinking` bytes on every request while `max_tokens` shrinks, and changes them
 * only when the cap can no longer hold the budget — once, to the next rung.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openTestAgent } from "../support/host_agent.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";

Deno.test("thinking bytes stay fixed while max_tokens shrinks with the window", async () => {
  const turns = 21;
  const fake = await startFakeLlm({
    format: "anthropic",
    script: Array.from({ length: turns }, (_, i) => ({ text: `noted ${i}` })),
  });
  const home = await Deno.makeTempDir({ prefix: "reasonix-thinking-home-" });
  const cwd = await Deno.makeTempDir({ prefix: "reasonix-thinking-cwd-" });
  await Deno.writeTextFile(
    join(home, "config.toml"),
    `default_model = "claude/think-model"

[[providers]]
name = "claude"
kind = "anthropic"
base_url = "${fake.url}"
models = ["think-model"]
thinking = "enabled"
api_key_env = "CLAUDE_KEY"
context_window = 60000
`,
  );
  const runtime = await openTestAgent({
    cwd,
    env: { REASONIX_HOME: home, CLAUDE_KEY: "sk-claude" },
  });
  try {
    for (let i = 0; i < turns; i++) {
      // ~2,000 tokens a turn: the window fills without reaching the compaction trigger.
      const text = `part ${i}: ${"lorem ipsum dolor sit amet ".repeat(300)}`;
      for await (
        const event of runtime.agent.run({ text }, { signal: AbortSignal.timeout(20_000) })
      ) {
        if (event.type === "done") assert.equal(event.status, "completed", event.error?.message);
      }
    }
  } finally {
    await runtime.dispose();
    await fake.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
  const sent = fake.requests.map((r) => {
    const body = r.body as { max_tokens: number; thinking?: unknown };
    return { max: body.max_tokens, thinking: JSON.stringify(body.thinking ?? null) };
  });
  assert.equal(sent.length, turns, "no summary request: the trigger was not reached");
  const caps = sent.map((s) => s.max);
  const shrinking = caps.filter((cap, i) => i > 0 && cap < caps[i - 1]).length;
  assert.ok(shrinking >= 8, `max_tokens shrank on ${shrinking} requests: ${caps.join(", ")}`);
  const full = '{"type":"enabled","budget_tokens":16384}';
  const rung = '{"type":"enabled","budget_tokens":8192}';
  const forced = sent.findIndex((s) => s.thinking !== full);
  assert.ok(forced > 0, `the window never forced a change: ${caps.join(", ")}`);
  assert.ok(sent.slice(0, forced).every((s) => s.thinking === full));
  assert.ok(caps.slice(0, forced).filter((cap) => cap < 32_768).length >= 4, caps.join(", "));
  // Forced only when the cap cannot hold budget + answer reserve, and then it holds again.
  assert.ok(sent[forced].max < 16_384 + 1_024 && sent[forced - 1].max >= 16_384 + 1_024);
  assert.ok(sent.slice(forced).every((s) => s.thinking === rung), JSON.stringify(sent));
});
