/**
 * End to end through the real CLI: headless runs fail closed with a message naming what would
 * allow the call, `--json` lists every permission decision, and bad modes or rules exit 2.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

/** The tool results the model saw in a request, in order. */
function toolResults(req: RecordedRequest): string[] {
  const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
  return messages.filter((m) => m.role === "tool").map((m) => m.content);
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** Runs `reasonix run --json <flags> task` where the model makes `calls`, one per turn. */
async function scripted(
  flags: string[],
  calls: { name: string; arguments: string }[],
  files: Record<string, string> = { "keep.txt": "keep\n" },
) {
  const script: FakeStep[] = [...calls.map((c) => ({ toolCalls: [c] })), { text: "done" }];
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo(files);
  const home = await makeHome(fake.url);
  const result = await runReasonix(["run", "--json", ...flags, "do it"], { cwd: repo, home });
  return {
    result,
    repo,
    requests: fake.requests,
    async cleanup() {
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

Deno.test("headless ask fails closed, tells the model what would allow it, and lists the decision", async () => {
  const run = await scripted([], [fakeToolCall("bash", { command: "touch pwned" })]);
  try {
    assert.equal(run.result.code, 3, "finished, but an action was refused");
    const summary = JSON.parse(run.result.stdout);
    assert.equal(summary.status, "completed");
    assert.equal(summary.permissions.length, 1);
    const [decision] = summary.permissions;
    assert.deepEqual(
      { ...decision, reason: undefined },
      {
        tool: "bash",
        decision: "ask",
        allowed: false,
        rule: "ask mode",
        preset: "ask",
        reason: undefined,
      },
    );
    assert.match(decision.reason, /--allow "Bash\(touch:\*\)"/);
    assert.match(decision.reason, /--permission-mode auto/);
    assert.equal(toolResults(run.requests[1])[0], decision.reason);
    assert.match(run.result.stderr, /✗ Not run: bash `touch pwned` needs approval/);
    assert.equal(await exists(join(run.repo, "pwned")), false);
    // Refused for want of an approver: listed with the complete fix, never cut.
    assert.equal(summary.refused.length, 1);
    assert.equal(summary.refused[0].tool, "bash");
    assert.equal(summary.refused[0].summary, "bash touch pwned");
    assert.match(summary.refused[0].reason, /^Not run: bash `touch pwned` needs approval/);
    assert.match(summary.refused[0].fix, /^To allow it, pass --allow "Bash\(touch:\*\)"/);
    assert.match(
      summary.refused[0].fix,
      /--permission-mode auto to run commands inside the workspace sandbox without asking\.$/,
    );
    const block = run.result.stderr.slice(run.result.stderr.indexOf("1 action was refused"));
    assert.match(block, /^1 action was refused \(exit code 3\):\n {2}✗ bash touch pwned\n/);
    assert.ok(block.includes(summary.refused[0].fix), "the whole fix is on stderr");
  } finally {
    await run.cleanup();
  }
});

Deno.test("--allow approves exactly the allowed command and nothing chained to it", async () => {
  const run = await scripted(["--allow", "Bash(git status:*)"], [
    fakeToolCall("bash", { command: "git status --short" }),
    fakeToolCall("bash", { command: "git status && touch pwned" }),
    fakeToolCall("read_file", { path: "keep.txt" }),
  ]);
  try {
    const summary = JSON.parse(run.result.stdout);
    assert.deepEqual(
      summary.permissions.map((
        p: Record<string, unknown>,
      ) => [p.tool, p.decision, p.allowed, p.rule]),
      [
        ["bash", "allow", true, "Bash(git status:*)"],
        ["bash", "ask", false, "ask mode"],
        ["read_file", "allow", true, "read-only tool"],
      ],
    );
    assert.match(summary.permissions[1].reason, /--allow "Bash\(touch:\*\)"/);
    assert.equal(await exists(join(run.repo, "pwned")), false);
  } finally {
    await run.cleanup();
  }
});

Deno.test("--deny holds even in yolo, against a wrapped command", async () => {
  const run = await scripted(["--permission-mode", "yolo", "--deny", "Bash(rm:*)"], [
    fakeToolCall("bash", { command: "echo keep.txt | xargs rm" }),
  ]);
  try {
    const [decision] = JSON.parse(run.result.stdout).permissions;
    assert.equal(decision.decision, "deny");
    assert.equal(decision.rule, "Bash(rm:*)");
    assert.equal(decision.preset, "yolo");
    assert.match(decision.reason, /deny rule "Bash\(rm:\*\)"/);
    assert.ok(await exists(join(run.repo, "keep.txt")));
  } finally {
    await run.cleanup();
  }
});

Deno.test("a write outside the workspace fails closed naming [sandbox].allow_write", async () => {
  const run = await scripted(["--permission-mode", "accept-edits"], [
    fakeToolCall("write_file", { path: "../escaped.txt", content: "x" }),
    fakeToolCall("write_file", { path: "inside.txt", content: "x" }),
  ]);
  try {
    const summary = JSON.parse(run.result.stdout);
    const [outside, inside] = summary.permissions;
    assert.equal(outside.allowed, false);
    assert.match(outside.reason, /outside the writable roots/);
    assert.match(outside.reason, /\[sandbox\]\.allow_write/);
    assert.equal(inside.allowed, true);
    assert.equal(await exists(join(run.repo, "..", "escaped.txt")), false);
    assert.equal(await Deno.readTextFile(join(run.repo, "inside.txt")), "x");
  } finally {
    await run.cleanup();
  }
});

Deno.test("read-only mode: commands and writers are refused, reads still work", async () => {
  const run = await scripted(["--permission-mode", "read-only"], [
    fakeToolCall("bash", { command: "touch created; ls keep.txt" }),
    fakeToolCall("write_file", { path: "written.txt", content: "x" }),
    fakeToolCall("grep", { pattern: "keep", output_mode: "files_with_matches" }),
  ]);
  try {
    assert.equal(run.result.code, 0, run.result.stderr);
    const summary = JSON.parse(run.result.stdout);
    assert.deepEqual(
      summary.permissions.map((p: Record<string, unknown>) => [p.tool, p.allowed, p.preset]),
      [["bash", false, "read-only"], ["write_file", false, "read-only"], [
        "grep",
        true,
        "read-only",
      ]],
    );
    const [bashResult, writeResult, grepResult] = toolResults(run.requests[3]);
    assert.match(bashResult, /read-only permission mode runs no commands/);
    assert.match(writeResult, /read-only permission mode never runs writers/);
    // Search still works: in-process, since the run gave up starting programs such as rg.
    assert.match(grepResult, /keep\.txt/);
    assert.equal(await exists(join(run.repo, "created")), false);
    assert.equal(await exists(join(run.repo, "written.txt")), false);
  } finally {
    await run.cleanup();
  }
});

Deno.test("an unknown mode or a malformed rule exits 2 before any request", async () => {
  const fake = await startFakeLlm({ script: [{ text: "never" }] });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    const mode = await runReasonix(["run", "--permission-mode", "careless", "hi"], {
      cwd: repo,
      home,
    });
    assert.equal(mode.code, 2);
    assert.match(mode.stderr, /unknown permission mode "careless"/);
    assert.match(mode.stderr, /read-only .*ask .*accept-edits .*auto .*yolo/s);
    const rule = await runReasonix(["run", "--deny", "Bash(rm x; y:*)", "hi"], { cwd: repo, home });
    assert.equal(rule.code, 2);
    assert.match(rule.stderr, /\[permissions\]\.deny \(or --deny\): rule "Bash\(rm x; y:\*\)"/);
    assert.equal(fake.requests.length, 0);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
