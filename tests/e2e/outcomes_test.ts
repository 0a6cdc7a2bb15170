/**
 * Honest headless outcomes through the real CLI: a run whose actions were refused for want of
 * an approver exits 3 and says, in full, what would allow each; every format reports them; a
 * configuration error reaches a `--json` reader as JSON; text runs end with a totals line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

async function scripted(args: string[], script: FakeStep[]) {
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({ "greeting.txt": "hello\n" });
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix(["run", ...args, "change the greeting"], { cwd: repo, home });
    return { ...result, greeting: await Deno.readTextFile(join(repo, "greeting.txt")) };
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

const EDIT: FakeStep[] = [
  {
    toolCalls: [{
      name: "edit_file",
      arguments: JSON.stringify({ path: "greeting.txt", old_string: "hello", new_string: "hi" }),
    }],
  },
  { text: "Done. I changed the greeting." },
];

Deno.test("a refused edit: exit 3, the file unchanged, the complete fix on stderr", async () => {
  const out = await scripted([], EDIT);
  assert.equal(out.code, 3, out.stderr);
  assert.equal(out.greeting, "hello\n");
  assert.match(out.stdout, /Done\. I changed the greeting\./);
  const block = out.stderr.slice(out.stderr.indexOf("1 action was refused (exit code 3):"));
  assert.match(block, /✗ edit_file greeting\.txt\n {4}Not run: edit_file/);
  assert.match(
    block,
    /To allow it, pass --allow "Edit\([^)]*\)" or --permission-mode accept-edits\.\n/,
  );
  // One line of totals ends the run.
  assert.match(
    out.stderr,
    /— 2 turns · 1 tool call · \d+ in \/ \d+ out tokens · \d+% cached · [\d.]+ m?s\n$/,
  );
});

Deno.test("stream-json reports the refused calls on the result line", async () => {
  const out = await scripted(["--output-format", "stream-json"], EDIT);
  assert.equal(out.code, 3);
  const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const result = lines.at(-1);
  assert.equal(result.type, "result");
  assert.equal(result.reasonix.refused.length, 1);
  assert.equal(result.reasonix.refused[0].tool, "edit_file");
  assert.match(result.reasonix.refused[0].fix, /--permission-mode accept-edits/);
});

Deno.test("a run with nothing refused exits 0", async () => {
  const out = await scripted(["--permission-mode", "accept-edits"], EDIT);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.greeting, "hi\n");
  assert.doesNotMatch(out.stderr, /refused/);
});

Deno.test("with --json a configuration error is a JSON object on stdout", async () => {
  const repo = await makeRepo({ "reasonix.toml": "[agent\nmax_turns = 3\n" });
  const home = await makeHome("http://127.0.0.1:9/v1");
  try {
    const out = await runReasonix(["run", "--json", "hi"], { cwd: repo, home });
    assert.equal(out.code, 2);
    const summary = JSON.parse(out.stdout);
    assert.equal(summary.is_error, true);
    assert.equal(summary.status, "error");
    assert.equal(summary.error.code, "config_invalid");
    assert.match(summary.result, /reasonix\.toml/);
    assert.ok(out.stderr.includes(summary.result), "stderr says the same");
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("with --json a bad command line is a JSON object on stdout too", async () => {
  const repo = await makeRepo({});
  const home = await makeHome("http://127.0.0.1:9/v1");
  try {
    for (
      const [args, shape] of [
        [["run", "--json", "--max-turns", "0", "hi"], "json"],
        [["run", "--output-format", "stream-json", "--jsn", "hi"], "stream-json"],
      ] as const
    ) {
      const out = await runReasonix([...args], { cwd: repo, home });
      assert.equal(out.code, 2);
      const line = JSON.parse(out.stdout);
      assert.equal(line.is_error, true);
      if (shape === "stream-json") assert.equal(line.type, "result");
      else assert.equal(line.status, "error");
      assert.match(line.result, /--max-turns must be a positive integer|unknown option '--jsn'/);
    }
    const plain = await runReasonix(["run", "--max-turns", "0", "hi"], { cwd: repo, home });
    assert.equal(plain.stdout, "", "text runs keep stdout for the answer");
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
