/**
 * End to end: `deno task reasonix run` as a subprocess, in a temporary git repository, against
 * the fake OpenAI-compatible server. A 10-request tool-using session fixes a failing test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { CONFIG_PATH, makeHome, makeRepo, runReasonix } from "./support.ts";

/** The tool results of the newest request, by tool call id. */
function lastToolResults(req: RecordedRequest): string[] {
  const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role === "tool"; i--) {
    out.unshift(messages[i].content);
  }
  return out;
}

const FIX_SCRIPT: FakeStep[] = [
  { reasoning: "Start by looking at the project.", toolCalls: [fakeToolCall("ls", {})] },
  {
    text: "Let me run the tests first.",
    toolCalls: [fakeToolCall("bash", { command: "sh test.sh" })],
  },
  { toolCalls: [fakeToolCall("read_file", { path: "math.js" })] },
  { toolCalls: [fakeToolCall("grep", { pattern: "a - b", output_mode: "content" })] },
  { toolCalls: [fakeToolCall("glob", { pattern: "**/*.js" })] },
  {
    reasoning: "add() subtracts; fix the operator.",
    toolCalls: [
      fakeToolCall("edit_file", { path: "math.js", old_string: "a - b", new_string: "a + b" }),
    ],
  },
  { toolCalls: [fakeToolCall("read_file", { path: "math.js" })] },
  { toolCalls: [fakeToolCall("bash", { command: "sh test.sh" })] },
  {
    toolCalls: [
      fakeToolCall("read_file", { path: "test.js" }, "call_p1"),
      fakeToolCall("grep", { pattern: "export", output_mode: "files_with_matches" }, "call_p2"),
    ],
  },
  { text: "Fixed: `add` in math.js subtracted its arguments. The test passes now." },
];

Deno.test("reasonix run fixes a failing test over 10 cache-stable requests", async () => {
  const fake = await startFakeLlm({ script: FIX_SCRIPT });
  const repo = await makeRepo({
    "math.js": "export function add(a, b) {\n  return a - b;\n}\n",
    "test.js": 'import { add } from "./math.js";\n' +
      'if (add(2, 3) !== 5) { console.error("FAIL: add(2, 3) = " + add(2, 3)); Deno.exit(1); }\n' +
      'console.log("PASS");\n',
    "test.sh": `"${Deno.execPath()}" run --no-config --no-lock --quiet test.js\n`,
  });
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix([
      "run",
      "--json",
      "--permission-mode",
      "auto",
      "fix the failing test",
    ], {
      cwd: repo,
      home,
    });
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.status, "completed");
    assert.equal(summary.turns, 10);
    assert.equal(summary.tool_calls, 10);
    assert.equal(
      summary.result,
      "Fixed: `add` in math.js subtracted its arguments. The test passes now.",
    );
    assert.ok(summary.tokens.prompt > 0 && summary.tokens.cache_hit > 0);

    // The edit landed and the repository's test passes.
    assert.equal(
      await Deno.readTextFile(`${repo}/math.js`),
      "export function add(a, b) {\n  return a + b;\n}\n",
    );
    assert.match(lastToolResults(fake.requests[2])[0], /FAIL: add\(2, 3\) = -1/);
    assert.match(lastToolResults(fake.requests[8])[0], /PASS/);
    assert.equal(lastToolResults(fake.requests[9]).length, 2);

    // Diagnostics went to stderr, never into the JSON on stdout.
    assert.match(result.stderr, /● edit_file math\.js/);

    // Every request begins with the exact bytes of the one before it (up to its closing `]}`).
    assert.equal(fake.requests.length, 10);
    for (let i = 1; i < fake.requests.length; i++) {
      const prev = fake.requests[i - 1].bodyText;
      const next = fake.requests[i].bodyText;
      assert.ok(prev.endsWith("]}"), `request ${i - 1} does not end with its messages array`);
      assert.ok(
        next.startsWith(prev.slice(0, -2)),
        `request ${i} is not a byte-extension of request ${i - 1}`,
      );
      assert.equal(fake.requests[i].sharedPrefixBytes, prev.length - 2);
    }
    assert.equal(fake.requests[0].headers["authorization"], "Bearer sk-e2e-test");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("reasonix run streams the answer to stdout and exits 0", async () => {
  const fake = await startFakeLlm({ script: [{ text: "Hello from the fake model.\n" }] });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix(["run", "say hello"], { cwd: repo, home });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "Hello from the fake model.\n");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a provider error exits 1 with the provider's message on stderr", async () => {
  const fake = await startFakeLlm({ script: [{ status: 401 }] });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix(["run", "--json", "hi"], { cwd: repo, home });
    assert.equal(result.code, 1);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.status, "error");
    assert.equal(summary.error.code, "provider_auth");
    assert.match(result.stderr, /401/);
    assert.doesNotMatch(result.stderr + result.stdout, /sk-e2e-test/);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a malformed project config exits 2 naming the file and line, before any request", async () => {
  const fake = await startFakeLlm({ script: [] });
  const repo = await makeRepo({ "reasonix.toml": "[agent]\nmax_turns = \n" });
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix(["run", "hi"], { cwd: repo, home });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /reasonix\.toml:2/);
    assert.match(result.stderr, /fix:/);
    assert.equal(fake.requests.length, 0);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a provider option its kind rejects exits 2 naming the file and line, not a crash", async () => {
  const fake = await startFakeLlm({ script: [] });
  const repo = await makeRepo({ "a.txt": "a" });
  const home = await makeHome(fake.url, 'max_tokens_field = "tokens"\n');
  try {
    const result = await runReasonix(["run", "hi"], { cwd: repo, home });
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /config\.toml:10: max_tokens_field = "tokens" in \[\[providers\]\] "fake"/,
    );
    assert.match(
      result.stderr,
      /fix: set max_tokens_field to "max_tokens" or "max_completion_tokens"/,
    );
    assert.doesNotMatch(result.stderr, /Uncaught|\n\s+at /);
    assert.equal(fake.requests.length, 0);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("bad run inputs exit 2 with one message and a fix, no trace, nothing touched", async () => {
  const fake = await startFakeLlm({ script: [] });
  const repo = await makeRepo({ "notes.txt": "my notes\n" });
  const home = await makeHome(fake.url);
  const config = await Deno.readTextFile(join(home, "config.toml"));
  const cases: { args: string[]; toml?: string; env?: Record<string, string>; want: RegExp }[] = [
    {
      args: ["run", "hi"],
      toml: '\n[sandbox]\nworkspace_root = "/nonexistent"\n',
      want: /\[sandbox\]\.workspace_root "\/nonexistent" does not exist\nfix: /,
    },
    {
      args: ["run", "--record", "notes.txt", "hi"],
      want: /--record notes\.txt: the file exists and is not a Reasonix recording/,
    },
    { args: ["run", "--timeout", "99999999999", "hi"], want: /--timeout must be at most 596h/ },
    {
      args: ["run", "--max-cost", "1", "hi"],
      want: /--max-cost needs prices for fake\/fake-model/,
    },
    {
      args: ["run", "hi"],
      env: { REASONIX_E2E_KEY: "sk-secret-value\nInjected: 1" },
      want: /REASONIX_E2E_KEY \(from the environment\) contains a line break/,
    },
    {
      args: ["-m", "fake", "run", "hi"],
      want: /-m fake must come after `run`: reasonix run -m fake/,
    },
  ];
  try {
    for (const c of cases) {
      await Deno.writeTextFile(join(home, "config.toml"), config + (c.toml ?? ""));
      const result = await runReasonix(c.args, { cwd: repo, home, env: c.env });
      const label = c.args.join(" ");
      assert.equal(result.code, 2, `${label}: ${result.stderr}`);
      assert.match(result.stderr, c.want, label);
      assert.doesNotMatch(result.stderr, /Uncaught|\n\s+at |sk-secret-value/, label);
    }
    assert.equal(await Deno.readTextFile(join(repo, "notes.txt")), "my notes\n");
    assert.equal(fake.requests.length, 0);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("deno.json's reasonix task answers --version", async () => {
  const result = await runReasonix(["--version"], { cwd: Deno.cwd(), home: "/nonexistent" });
  assert.equal(result.code, 0);
  const config = JSON.parse(await Deno.readTextFile(CONFIG_PATH));
  assert.equal(result.stdout.trim(), `reasonix ${config.version}`);
});

Deno.test("hard limits end an unattended run cleanly with a clear status", async () => {
  const loop = () => ({ toolCalls: [{ name: "ls", arguments: "{}" }] });
  const fake = await startFakeLlm({ script: [loop(), loop(), loop(), loop(), loop()] });
  const repo = await makeRepo({ "a.txt": "a" });
  const home = await makeHome(fake.url);
  try {
    const tokens = await runReasonix(["run", "--json", "--max-tokens", "10", "go"], {
      cwd: repo,
      home,
    });
    assert.equal(tokens.code, 1, tokens.stderr);
    const summary = JSON.parse(tokens.stdout);
    assert.equal(summary.status, "budget_exceeded");
    assert.match(summary.detail, /--max-tokens/);
    assert.equal(summary.turns, 1);

    const turns = await runReasonix(["run", "--json", "--max-turns", "2", "go"], {
      cwd: repo,
      home,
    });
    assert.equal(JSON.parse(turns.stdout).status, "max_turns");
    assert.match(turns.stderr, /raise it with --max-turns/);

    const bad = await runReasonix(["run", "--timeout", "soon", "go"], { cwd: repo, home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--timeout must be a duration such as 90s/);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("--timeout ends a stalled run with status timeout", async () => {
  const fake = await startFakeLlm({ script: [{ hang: "before-headers" }] });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix(["run", "--json", "--timeout", "1s", "go"], {
      cwd: repo,
      home,
    });
    assert.equal(result.code, 1, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.status, "timeout");
    assert.match(summary.detail, /time limit/);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
