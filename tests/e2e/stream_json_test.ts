/**
 * End to end: `reasonix run --output-format stream-json` and `--input-format stream-json` as
 * subprocesses against the fake OpenAI-compatible server. The lines must be what a program
 * written for Claude Code's headless mode reads: every line JSON, `system`/`init` first,
 * `tool_use` and `tool_result` paired by id, a `result` line last.
 */
import assert from "node:assert/strict";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep } from "../fake_llm/mod.ts";
import { cliEnv, makeHome, makeRepo, REASONIX_TASK, runReasonix } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Line = Record<string, any>;

/** Parses stdout as JSON lines; every line must parse. */
function parseLines(stdout: string): Line[] {
  assert.ok(stdout.endsWith("\n"), "stdout ends with a newline");
  return stdout.slice(0, -1).split("\n").map((line, i) => {
    try {
      return JSON.parse(line);
    } catch (error) {
      throw new Error(`stdout line ${i + 1} is not JSON: ${line}`, { cause: error });
    }
  });
}

/** Runs the CLI with `input` on stdin. */
async function runWithStdin(
  args: string[],
  input: string,
  opts: { cwd: string; home: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [program, ...taskArgs] = REASONIX_TASK;
  const child = new Deno.Command(program, {
    args: [...taskArgs, ...args],
    cwd: opts.cwd,
    clearEnv: true,
    env: cliEnv(opts.home),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const out = await child.output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

const userLine = (content: unknown) =>
  `${JSON.stringify({ type: "user", message: { role: "user", content } })}\n`;

const PRICE = `
[providers.model_overrides."fake-model"]
price = { cache_hit = 0.1, input = 1, output = 2, currency = "USD" }
`;

const TOOL_SCRIPT: FakeStep[] = [
  {
    reasoning: "List the files, then read the note.",
    text: "Looking around.",
    toolCalls: [
      fakeToolCall("ls", {}, "call_ls"),
      fakeToolCall("read_file", { path: "note.txt" }, "call_read"),
    ],
  },
  // The default preset asks before running commands; a headless run has no one to ask.
  { toolCalls: [fakeToolCall("bash", { command: "cat note.txt" }, "call_bash")] },
  { text: "The note says hello." },
];

Deno.test("--output-format stream-json writes Claude Code's message shapes, paired by id", async () => {
  const fake = await startFakeLlm({ script: TOOL_SCRIPT });
  const repo = await makeRepo({ "note.txt": "hello\n" });
  const home = await makeHome(fake.url, PRICE);
  try {
    const result = await runReasonix(
      ["run", "--output-format", "stream-json", "what does the note say?"],
      { cwd: repo, home },
    );
    // The script's `bash` call needs an approver this run does not have: finished, but refused.
    assert.equal(result.code, 3, result.stderr);
    const lines = parseLines(result.stdout);

    const init = lines[0];
    assert.equal(init.type, "system");
    assert.equal(init.subtype, "init");
    assert.equal(typeof init.session_id, "string");
    assert.ok(init.session_id.length > 0);
    assert.equal(init.model, "fake/fake-model");
    assert.equal(init.cwd, repo);
    assert.ok(init.tools.includes("read_file") && init.tools.includes("bash"), init.tools);
    assert.equal(typeof init.permissionMode, "string");
    for (const line of lines) {
      assert.equal(line.session_id, init.session_id, JSON.stringify(line));
      assert.equal(typeof line.uuid, "string");
    }
    assert.equal(lines.filter((l) => l.type === "system" && l.subtype === "init").length, 1);

    // Assistant lines carry the message: thinking, text and one tool_use block per call.
    const assistant = lines.filter((l) => l.type === "assistant");
    for (const line of assistant) {
      assert.equal(line.message.role, "assistant");
      assert.equal(line.message.model, "fake-model");
      assert.equal(line.parent_tool_use_id, null);
      assert.ok(Array.isArray(line.message.content) && line.message.content.length > 0);
    }
    const blocks = assistant.flatMap((l) => l.message.content);
    assert.deepEqual(blocks.filter((b) => b.type !== "tool_use"), [
      { type: "thinking", thinking: "List the files, then read the note.", signature: "" },
      { type: "text", text: "Looking around." },
      { type: "text", text: "The note says hello." },
    ]);
    const uses = blocks.filter((b) => b.type === "tool_use");
    assert.deepEqual(uses.map((b) => [b.id, b.name]), [
      ["call_ls", "ls"],
      ["call_read", "read_file"],
      ["call_bash", "bash"],
    ]);
    assert.deepEqual(uses[1].input, { path: "note.txt" });

    // Every tool_use gets exactly one tool_result, after it, with the same id.
    const results = new Map<string, { index: number; block: Line }>();
    lines.forEach((line, index) => {
      if (line.type !== "user") return;
      assert.equal(line.message.role, "user");
      for (const block of line.message.content) {
        assert.equal(block.type, "tool_result");
        assert.ok(!results.has(block.tool_use_id), `two results for ${block.tool_use_id}`);
        results.set(block.tool_use_id, { index, block });
      }
    });
    assert.deepEqual([...results.keys()].sort(), uses.map((b) => b.id).sort());
    for (const use of uses) {
      const useIndex = lines.findIndex((l) =>
        l.type === "assistant" && l.message.content.some((b: Line) => b.id === use.id)
      );
      assert.ok(results.get(use.id)!.index > useIndex, `${use.id}: result before its use`);
    }
    assert.match(results.get("call_read")!.block.content, /hello/);
    assert.equal(results.get("call_read")!.block.is_error, false);
    // The refused command is an error result, a permission line and a denial in the result.
    assert.equal(results.get("call_bash")!.block.is_error, true);
    const permission = lines.find((l) =>
      l.subtype === "reasonix_permission" && l.tool_use_id === "call_bash"
    );
    assert.equal(permission?.type, "system");
    assert.equal(permission?.allowed, false);
    assert.equal(permission?.preset, init.permissionMode);

    const last = lines.at(-1)!;
    assert.equal(last.type, "result");
    assert.equal(lines.filter((l) => l.type === "result").length, 1);
    assert.equal(last.subtype, "success");
    assert.equal(last.is_error, false);
    assert.equal(last.num_turns, 3);
    assert.equal(last.result, "The note says hello.");
    assert.equal(typeof last.duration_ms, "number");
    assert.equal(typeof last.duration_api_ms, "number");
    assert.equal(typeof last.total_cost_usd, "number");
    assert.ok(last.total_cost_usd > 0);
    for (const key of ["input_tokens", "output_tokens", "cache_read_input_tokens"]) {
      assert.ok(Number.isInteger(last.usage[key]) && last.usage[key] > 0, key);
    }
    assert.equal(last.usage.cache_creation_input_tokens, 0);
    assert.deepEqual(last.permission_denials.map((d: Line) => [d.tool_name, d.tool_use_id]), [
      ["bash", "call_bash"],
    ]);
    assert.deepEqual(last.permission_denials[0].tool_input, { command: "cat note.txt" });
    assert.equal(fake.requests.length, 3);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("--input-format stream-json runs each stdin line as a turn of one session", async () => {
  const fake = await startFakeLlm({
    script: [{ text: "Answer one." }, { text: "Answer two." }],
  });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    const result = await runWithStdin(
      ["run", "--input-format", "stream-json", "--output-format", "stream-json"],
      userLine("first question") + userLine([{ type: "text", text: "second question" }]),
      { cwd: repo, home },
    );
    assert.equal(result.code, 0, result.stderr);
    const lines = parseLines(result.stdout);
    assert.equal(lines[0].subtype, "init");
    const results = lines.filter((l) => l.type === "result");
    assert.deepEqual(results.map((r) => [r.subtype, r.result]), [
      ["success", "Answer one."],
      ["success", "Answer two."],
    ]);
    assert.equal(lines.at(-1)!.type, "result");
    for (const line of lines) assert.equal(line.session_id, lines[0].session_id);

    // The second request holds the first turn, and extends the first request byte for byte.
    assert.equal(fake.requests.length, 2);
    const messages = (fake.requests[1].body as { messages: { role: string; content: string }[] })
      .messages;
    const firstUser = messages.findIndex((m) => m.role === "user");
    assert.match(messages[firstUser].content, /first question/);
    assert.deepEqual(messages[firstUser + 1], { role: "assistant", content: "Answer one." });
    assert.equal(messages.at(-1)!.role, "user");
    assert.match(messages.at(-1)!.content, /second question/);
    const prev = fake.requests[0].bodyText;
    assert.ok(prev.endsWith("]}"));
    assert.ok(fake.requests[1].bodyText.startsWith(prev.slice(0, -2)), "the cache prefix broke");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a malformed stdin line ends the run with exit 2 and an error result; the session stays", async () => {
  const fake = await startFakeLlm({ script: [{ text: "Answer one." }, { text: "Resumed." }] });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    const result = await runWithStdin(
      ["run", "--input-format", "stream-json", "--output-format", "stream-json"],
      userLine("first question") + '{"type":"user","message":\n' + userLine("never read"),
      { cwd: repo, home },
    );
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /stdin line 2: not JSON/);
    assert.doesNotMatch(result.stderr, /Uncaught|\n\s+at /);
    const lines = parseLines(result.stdout);
    const results = lines.filter((l) => l.type === "result");
    assert.deepEqual(results.map((r) => r.is_error), [false, true]);
    assert.match(results[1].result, /^stdin line 2: /);
    assert.equal(lines.at(-1)!.type, "result");
    assert.equal(fake.requests.length, 1);

    // The turn before the bad line was saved: the session resumes with it.
    const sessionId = lines[0].session_id;
    const resumed = await runReasonix(
      ["run", "--output-format", "stream-json", "--resume", sessionId, "go on"],
      { cwd: repo, home },
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(parseLines(resumed.stdout)[0].session_id, sessionId);
    const messages = (fake.requests[1].body as { messages: { role: string; content: string }[] })
      .messages;
    assert.ok(messages.some((m) => m.role === "assistant" && m.content === "Answer one."));

    // Usage errors of the formats exit 2 before anything runs.
    const bad = await runReasonix(["run", "--input-format", "stream-json"], { cwd: repo, home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /needs --output-format stream-json/);
    const conflict = await runReasonix(
      ["run", "--json", "--output-format", "stream-json", "hi"],
      { cwd: repo, home },
    );
    assert.equal(conflict.code, 2);
    assert.match(conflict.stderr, /conflicts/);
    assert.equal(fake.requests.length, 2);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
