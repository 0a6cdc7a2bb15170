/**
 * The tool list of a session is stable (issue 13, point 4), through the real host, real stdio
 * MCP server processes and the fake LLM: a session resumed while its servers are slow, stuck
 * or gone sends the tool bytes it sent before, a new agent on the same session (`/model`) does
 * too, calls to tools of servers that are not ready wait for them (or fail readably past the
 * start-up timeout), and what differs from the live lists is reported.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentEvent } from "../../core/agent/events.ts";
import type { HostedAgent } from "../../core/host/mod.ts";
import { parseTranscript } from "../../core/store/mod.ts";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { makeRepo, runReasonix } from "../e2e/support.ts";
import { openTestAgent } from "../support/host_agent.ts";
import { DENO_JSON } from "./servers.ts";

const GATED = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "gated_server.ts");

interface ServerOptions {
  /** The server starts once this file exists. */
  gate: string;
  startupTimeoutSeconds?: number;
  extraTools?: number;
}

function server(name: string, o: ServerOptions): string {
  const args = ["run", "-A", "--quiet", "--config", DENO_JSON, GATED]
    .map((a) => JSON.stringify(a)).join(", ");
  return `
[[mcp.servers]]
name = "${name}"
command = ${JSON.stringify(Deno.execPath())}
args = [${args}]
env = { FIXTURE_NAME = "${name}", FIXTURE_GATE_FILE = ${
    JSON.stringify(o.gate)
  }, FIXTURE_EXTRA_TOOLS = "${o.extraTools ?? 3}" }
${o.startupTimeoutSeconds ? `startup_timeout_seconds = ${o.startupTimeoutSeconds}` : ""}
# The gate files live in the host's /tmp, which the sandbox hides.
sandbox = false
`;
}

async function writeConfig(home: string, url: string, servers: string): Promise<void> {
  await Deno.writeTextFile(
    join(home, "config.toml"),
    `default_model = "fake/fake-model"

[[providers]]
name = "fake"
kind = "openai"
base_url = "${url}"
models = ["fake-model", "other-model"]
api_key_env = "REASONIX_E2E_KEY"
context_window = 128000
${servers}`,
  );
}

function toolsBytes(req: RecordedRequest): string {
  return JSON.stringify((req.body as { tools: unknown[] }).tools);
}

function toolNames(req: RecordedRequest): string[] {
  return (req.body as { tools: { function: { name: string } }[] }).tools.map((t) =>
    t.function.name
  );
}

/** The tool results of the newest request, by tool call id order. */
function lastToolResults(req: RecordedRequest): string[] {
  const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role === "tool"; i--) {
    out.unshift(messages[i].content);
  }
  return out;
}

async function runTurn(agent: HostedAgent, text: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const e of agent.run({ text }, { signal: AbortSignal.timeout(60_000) })) {
    events.push(e);
  }
  const done = events.at(-1) as Extract<AgentEvent, { type: "done" }>;
  assert.equal(done.status, "completed", JSON.stringify(done.error));
  return events;
}

function env(home: string): Record<string, string | undefined> {
  return { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") };
}

Deno.test("a resumed session offers the tool bytes it offered before, while servers are slow, stuck or gone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-stable-tools-" });
  const open = join(dir, "open");
  await Deno.writeTextFile(open, "");
  const slowGate = join(dir, "slow-may-start");
  const never = join(dir, "never");
  let released: Promise<void> | undefined;
  const script = (_req: RecordedRequest, index: number): FakeStep | undefined => {
    switch (index) {
      case 0:
        return { text: "Ready." };
      case 1:
        // The slow server may start only once its tool is being called.
        released = new Promise((resolve) =>
          setTimeout(() => Deno.writeTextFile(slowGate, "").then(resolve), 600)
        );
        return {
          toolCalls: [
            fakeToolCall("mcp__slow__echo", { text: "late" }),
            fakeToolCall("mcp__stuck__echo", { text: "never" }),
            fakeToolCall("mcp__gone__echo", { text: "gone" }),
          ],
        };
      case 2:
        return { text: "Done." };
      case 3:
        return { text: "Switched." };
    }
    return undefined;
  };
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({});
  const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-home-" });
  try {
    // First run: every server is up; their tools are direct tools of the session.
    await writeConfig(
      home,
      fake.url,
      server("slow", { gate: open }) + server("stuck", { gate: open }) +
        server("gone", { gate: open }),
    );
    const first = await openTestAgent({ cwd: repo, env: env(home), mcpReadyWaitMs: 30_000 });
    try {
      await runTurn(first.agent, "hello");
    } finally {
      await first.dispose();
    }
    const before = fake.requests[0];
    for (const name of ["mcp__slow__echo", "mcp__stuck__echo", "mcp__gone__echo"]) {
      assert.ok(toolNames(before).includes(name), `${name} offered in the first run`);
    }
    const recorded = parseTranscript(await Deno.readTextFile(first.sessionPath))!;
    assert.ok(recorded.tools?.some((t) => t.name === "mcp__gone__echo"), "tools recorded");

    // `--continue`: "slow" waits for its gate, "stuck" never starts (1 s start-up timeout),
    // "gone" is no longer declared.
    await writeConfig(
      home,
      fake.url,
      server("slow", { gate: slowGate }) +
        server("stuck", { gate: never, startupTimeoutSeconds: 1 }),
    );
    const resumed = await openTestAgent({
      cwd: repo,
      env: env(home),
      mcpReadyWaitMs: 200,
      flags: { resume: "latest" },
    });
    try {
      const status = Object.fromEntries(resumed.host.mcp!.status().map((s) => [s.name, s]));
      assert.equal(status.slow.phase, "starting");
      const gone = resumed.agent.warnings.find((w) => w.includes(`MCP server "gone"`));
      assert.match(gone ?? "", /not declared any more.*reasonix mcp add gone/);

      await runTurn(resumed.agent, "call the tools");
      const after = fake.requests[1];
      assert.equal(toolsBytes(after), toolsBytes(before), "the tool block is byte-identical");
      // The whole first request is a prefix of the first one after the resume.
      assert.equal(after.sharedPrefixBytes, before.bodyText.length - 2);

      const [slow, stuck, vanished] = lastToolResults(fake.requests[2]);
      assert.equal(slow, "late", "the call waited for the slow server and ran");
      assert.match(stuck, /MCP server "stuck" is not ready after 1s/);
      assert.match(stuck, /the call did not run/);
      assert.match(stuck, /startup_timeout_seconds/);
      assert.match(vanished, /MCP server "gone" is not declared any more/);
      assert.match(vanished, /reasonix mcp add gone/);
      await released;

      // `/model`: a new agent on the same host and session offers the same bytes, though
      // "slow" is ready now and "stuck" has failed.
      const id = resumed.agent.session.id;
      await resumed.agent.close();
      const switched = await resumed.host.createAgent({
        model: "fake/other-model",
        transcript: { resume: id },
      });
      try {
        await runTurn(switched, "go on with another model");
      } finally {
        await switched.close();
      }
      assert.equal((fake.requests[3].body as { model: string }).model, "other-model");
      assert.equal(toolsBytes(fake.requests[3]), toolsBytes(before));
    } finally {
      await resumed.dispose();
    }
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a server whose tool list changed is reported when it becomes ready; the session keeps its tools", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-stable-tools-" });
  const open = join(dir, "open");
  await Deno.writeTextFile(open, "");
  const gate = join(dir, "var-may-start");
  const script = (_req: RecordedRequest, index: number): FakeStep | undefined => {
    switch (index) {
      case 0:
        return { text: "Ready." };
      case 1:
        return { toolCalls: [fakeToolCall("mcp__var__t03", {})] };
      case 2:
        return { text: "Done." };
    }
    return undefined;
  };
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({});
  const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-home-" });
  try {
    await writeConfig(home, fake.url, server("var", { gate: open, extraTools: 3 }));
    const first = await openTestAgent({ cwd: repo, env: env(home), mcpReadyWaitMs: 30_000 });
    try {
      await runTurn(first.agent, "hello");
    } finally {
      await first.dispose();
    }
    assert.ok(toolNames(fake.requests[0]).includes("mcp__var__t03"));

    // The server now lists one filler tool fewer, and starts only after the agent is built.
    await writeConfig(home, fake.url, server("var", { gate, extraTools: 2 }));
    const resumed = await openTestAgent({
      cwd: repo,
      env: env(home),
      mcpReadyWaitMs: 200,
      flags: { resume: "latest" },
    });
    try {
      assert.ok(!resumed.agent.warnings.some((w) => w.includes(`"var"`)), "nothing known yet");
      await Deno.writeTextFile(gate, "");
      const deadline = Date.now() + 30_000;
      while (resumed.host.mcp!.status()[0].phase !== "ready" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const events = await runTurn(resumed.agent, "call t03");
      const notices = events.filter((e) => e.type === "notice").map((e) =>
        (e as Extract<AgentEvent, { type: "notice" }>).message
      );
      const report = notices.find((m) => m.includes(`MCP server "var"`));
      assert.match(report ?? "", /no longer listed mcp__var__t03/, JSON.stringify(notices));
      assert.match(report!, /Start a new session/);
      // Reported once, not on every change.
      assert.equal(notices.filter((m) => m.includes(`MCP server "var"`)).length, 1);

      assert.equal(toolsBytes(fake.requests[1]), toolsBytes(fake.requests[0]));
      assert.match(
        lastToolResults(fake.requests[2])[0],
        /MCP server "var" no longer offers the tool "t03".*did not run/,
      );
    } finally {
      await resumed.dispose();
    }
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reasonix run --continue with a slow MCP server sends the same tools and the call waits for it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-stable-tools-" });
  const open = join(dir, "open");
  await Deno.writeTextFile(open, "");
  const gate = join(dir, "slow-may-start");
  let released: Promise<void> | undefined;
  const script = (_req: RecordedRequest, index: number): FakeStep | undefined => {
    switch (index) {
      case 0:
        return { text: "Ready." };
      case 1:
        released = new Promise((resolve) =>
          setTimeout(() => Deno.writeTextFile(gate, "").then(resolve), 600)
        );
        return {
          toolCalls: [
            fakeToolCall("mcp__slow__echo", { text: "waited" }),
            fakeToolCall("mcp__gone__pid", {}),
          ],
        };
      case 2:
        return { text: "Done." };
    }
    return undefined;
  };
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({});
  const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-home-" });
  try {
    await writeConfig(
      home,
      fake.url,
      server("slow", { gate: open }) + server("gone", { gate: open }),
    );
    let r = await runReasonix(["run", "--json", "hello"], {
      cwd: repo,
      home,
      env: { REASONIX_MCP_WAIT_MS: "30000" },
    });
    assert.equal(r.code, 0, r.stderr);
    await writeConfig(home, fake.url, server("slow", { gate }));
    r = await runReasonix(["run", "--json", "--continue", "call the tools"], {
      cwd: repo,
      home,
      env: { REASONIX_MCP_WAIT_MS: "100" },
    });
    // The call to the vanished server could not start: finished, with that action refused.
    assert.equal(r.code, 3, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).refused.map((e: { tool: string }) => e.tool), [
      "mcp__gone__pid",
    ]);
    assert.match(r.stderr, /MCP server "gone" is not declared any more/);
    assert.equal(fake.requests.length, 3);
    assert.equal(toolsBytes(fake.requests[1]), toolsBytes(fake.requests[0]));
    assert.equal(fake.requests[1].sharedPrefixBytes, fake.requests[0].bodyText.length - 2);
    const [slow, gone] = lastToolResults(fake.requests[2]);
    assert.equal(slow, "waited");
    assert.match(gone, /MCP server "gone" is not declared any more/);
    await released;
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});
