/**
 * The host end to end, against the fake LLM server and a real MCP server process: one MCP
 * process for the whole session however many agents are made on the host (`/model`,
 * `/resume`, `/new`), and a complete session with approvals driven by a front end that uses
 * nothing but `for await (const event of agent.run(input, { signal }))`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openHost } from "../../cli/host.ts";
import { HostBackend } from "../../cli/ui/backend.ts";
import { UiApprovalBroker } from "../../cli/ui/broker.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo } from "./support.ts";
import { fixtureServerToml } from "../mcp/servers.ts";

/** The newest tool result of a request. */
function lastToolResult(req: RecordedRequest): string {
  const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
  return messages.filter((m) => m.role === "tool").at(-1)?.content ?? "";
}

const MCP_SERVER = fixtureServerToml();

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

Deno.test("the MCP server process survives /model, /resume and /new on one host", async () => {
  const pids: number[] = [];
  // Every user turn asks the server for its pid, then answers with it.
  const script = (req: RecordedRequest): FakeStep => {
    const last = (req.body as { messages: { role: string }[] }).messages.at(-1);
    if (last?.role === "tool") {
      pids.push(Number(lastToolResult(req)));
      return { text: `pid ${pids.at(-1)}` };
    }
    return { toolCalls: [fakeToolCall("mcp__fx__pid", {})] };
  };
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url, MCP_SERVER);
  await Deno.writeTextFile(
    join(home, "config.toml"),
    (await Deno.readTextFile(join(home, "config.toml"))).replace(
      'models = ["fake-model"]',
      'models = ["fake-model", "other-model"]',
    ),
  );
  const host = await openHost({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
    mcpReadyWaitMs: 15_000,
  });
  const backend = await HostBackend.create({ host, broker: new UiApprovalBroker() });
  const turn = async () => {
    for await (const _ of backend.run("which pid?", { signal: AbortSignal.timeout(30_000) })) {
      // drained
    }
  };
  try {
    await turn();
    const first = backend.info().sessionId;
    await backend.switchModel("fake/other-model");
    assert.equal(backend.info().model, "fake/other-model");
    await turn();
    await backend.newConversation();
    await turn();
    await backend.resume(first);
    assert.equal(backend.info().sessionId, first);
    await turn();
    assert.equal(pids.length, 4, `pids: ${pids}`);
    assert.ok(Number.isInteger(pids[0]) && pids[0] > 1, `the pid tool answered ${pids[0]}`);
    assert.deepEqual(new Set(pids).size, 1, `one server process throughout, got ${pids}`);
    assert.ok(alive(pids[0]), "the server still runs");
  } finally {
    await backend.dispose();
    await host.close();
    await fake.close();
  }
  assert.ok(pids[0] > 1);
  // Closing the host is what stops the server.
  const deadline = Date.now() + 5000;
  while (alive(pids[0]) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(pids[0]), false, "closing the host stops the server");
  await Deno.remove(repo, { recursive: true });
  await Deno.remove(home, { recursive: true });
});

Deno.test("a front end that uses only the event loop drives a session with approvals", async () => {
  const script: FakeStep[] = [
    { toolCalls: [fakeToolCall("bash", { command: "echo approved-run > out.txt" })] },
    { toolCalls: [fakeToolCall("bash", { command: "echo refused-run > no.txt" })] },
    { text: "Done: one command ran, one was refused." },
  ];
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    await using host = await openHost({
      cwd: repo,
      env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
      flags: { permissionMode: "ask" },
    });
    await using agent = await host.createAgent({ approvals: "stream" });

    // The whole front end: render events, answer approvals from the events themselves.
    const seen: AgentEvent[] = [];
    let asked = 0;
    for await (
      const event of agent.run({ text: "write two files" }, {
        signal: AbortSignal.timeout(30_000),
      })
    ) {
      seen.push(event);
      if (event.type === "approval_request") {
        assert.ok(event.respond, "a stream agent's approval carries its responder");
        event.respond(asked++ === 0 ? "once" : "deny");
      }
    }

    const types = new Set(seen.map((e) => e.type));
    for (const t of ["approval_request", "approval_answer", "permission", "usage", "done"]) {
      assert.ok(types.has(t as AgentEvent["type"]), `no ${t} event`);
    }
    const permissions = seen.flatMap((e) => e.type === "permission" ? [e.allowed] : []);
    assert.deepEqual(permissions, [true, false]);
    const done = seen.at(-1);
    assert.equal(done?.type, "done");
    assert.equal(done?.type === "done" && done.status, "completed");
    assert.equal((await Deno.readTextFile(join(repo, "out.txt"))).trim(), "approved-run");
    await assert.rejects(Deno.stat(join(repo, "no.txt")), Deno.errors.NotFound);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a headless agent of the same host fails closed: nobody is asked", async () => {
  const script: FakeStep[] = [
    { toolCalls: [fakeToolCall("bash", { command: "echo x > out.txt" })] },
    { text: "Could not run it." },
  ];
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    await using host = await openHost({
      cwd: repo,
      env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
      flags: { permissionMode: "ask" },
    });
    await using agent = await host.createAgent({});
    const seen: AgentEvent[] = [];
    for await (const e of agent.run({ text: "go" }, { signal: AbortSignal.timeout(30_000) })) {
      seen.push(e);
    }
    assert.equal(seen.some((e) => e.type === "approval_request"), false);
    assert.deepEqual(seen.flatMap((e) => e.type === "permission" ? [e.allowed] : []), [false]);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
