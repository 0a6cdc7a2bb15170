/**
 * End to end through the real runtime and the fake LLM: MCP tool results reach the next
 * request, and the bytes the model sees only ever grow while one server connects late and
 * another is killed and reconnects. The late server is reached through `use_capability`; the
 * tool list never changes.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { openTestAgent } from "../support/host_agent.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo } from "../e2e/support.ts";
import { DENO_JSON, FIXTURE_STDIO } from "./servers.ts";

/** The tool results of the newest request. */
function lastToolResults(req: RecordedRequest): string[] {
  const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role === "tool"; i--) {
    out.unshift(messages[i].content);
  }
  return out;
}

function toolNames(req: RecordedRequest): string[] {
  const tools = (req.body as { tools: { function: { name: string } }[] }).tools;
  return tools.map((t) => t.function.name);
}

function server(name: string, gate = ""): string {
  const args = ["run", "-A", "--quiet", "--config", DENO_JSON, FIXTURE_STDIO]
    .map((a) => JSON.stringify(a)).join(", ");
  return `
[[mcp.servers]]
name = "${name}"
command = ${JSON.stringify(Deno.execPath())}
args = [${args}]
env = { FIXTURE_NAME = "${name}", FIXTURE_GATE_FILE = ${JSON.stringify(gate)} }
# The test kills the server by the pid it reports, which means nothing inside the sandbox's
# own PID namespace.
sandbox = false
`;
}

Deno.test("MCP results reach the next request, byte-stable across a late connection and a reconnect", async () => {
  let killed = 0;
  const gate = join(await Deno.makeTempDir(), "slow-may-start");
  const script = (req: RecordedRequest, index: number): FakeStep | undefined => {
    switch (index) {
      case 0:
        // The slow server becomes ready only after the session's first request.
        Deno.writeTextFileSync(gate, "");
        return { toolCalls: [fakeToolCall("mcp__fast__echo", { text: "one" })] };
      case 1:
        return { toolCalls: [fakeToolCall("mcp__fast__pid", {})] };
      case 2: {
        // The fast server dies between turns; slow frames give it (and the late server) time.
        killed = Number(lastToolResults(req)[0]);
        // Never signal 0 or a negative pid: that would hit this test's whole process group.
        if (!Number.isInteger(killed) || killed <= 1) {
          throw new Error(
            `the fixture's pid tool answered ${JSON.stringify(lastToolResults(req))}`,
          );
        }
        Deno.kill(killed, "SIGKILL");
        return { toolCalls: [fakeToolCall("use_capability", { query: "echo" })], delayMs: 400 };
      }
      case 3:
        return {
          toolCalls: [fakeToolCall("use_capability", {
            capability: "mcp:slow:echo",
            arguments: { text: "late" },
          })],
        };
      case 4:
        return { toolCalls: [fakeToolCall("mcp__fast__echo", { text: "two" })] };
      case 5:
        return { text: "All done." };
    }
    return undefined;
  };
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url, server("fast") + server("slow", gate));
  const runtime = await openTestAgent({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
    flags: {},
    // Long enough for the fast server on a loaded machine; the slow one waits for the gate.
    mcpReadyWaitMs: 8000,
  });
  const events: AgentEvent[] = [];
  try {
    assert.equal(runtime.host.mcp!.status().find((s) => s.name === "slow")?.phase, "starting");
    for await (
      const event of runtime.agent.run({ text: "use the MCP servers" }, {
        signal: new AbortController().signal,
      })
    ) {
      events.push(event);
    }
    const done = events.at(-1) as Extract<AgentEvent, { type: "done" }>;
    assert.equal(done.status, "completed", JSON.stringify(done.error));
    const status = Object.fromEntries(runtime.host.mcp!.status().map((s) => [s.name, s]));
    assert.equal(status.fast.reconnects, 1);
    assert.equal(status.slow.phase, "ready");
  } finally {
    await runtime.dispose();
    await fake.close();
  }
  try {
    const requests = fake.requests;
    assert.equal(requests.length, 6);
    // The fast server's tools are direct tools; the late one's are not, on every request.
    const first = toolNames(requests[0]);
    assert.ok(first.includes("mcp__fast__echo"));
    assert.ok(!first.some((n) => n.startsWith("mcp__slow__")));
    assert.ok(first.includes("use_capability"));

    assert.deepEqual(lastToolResults(requests[1]), ["one"]);
    assert.ok(killed > 0);
    assert.match(lastToolResults(requests[3])[0], /mcp:slow:echo/);
    assert.deepEqual(lastToolResults(requests[4]), ["late"]);
    assert.deepEqual(lastToolResults(requests[5]), ["two"]);

    // Every request begins with the exact bytes of the one before it.
    for (let i = 1; i < requests.length; i++) {
      const prev = requests[i - 1].bodyText;
      assert.ok(prev.endsWith("]}"), `request ${i - 1} does not end with its messages array`);
      assert.equal(
        requests[i].sharedPrefixBytes,
        prev.length - 2,
        `request ${i} is not a byte-extension of request ${i - 1}`,
      );
    }
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
    await Deno.remove(dirname(gate), { recursive: true });
  }
});
