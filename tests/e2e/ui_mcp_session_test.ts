/**
 * The interactive controller on one host with a real stdio MCP server process: `/new` and
 * `/clear` start a new conversation on the same host, so the server keeps running (its pid
 * does not change); and an MCP prompt's text is the server's, so its `@` references stay
 * inside the workspace.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openHost } from "../../cli/host.ts";
import { HostBackend } from "../../cli/ui/backend.ts";
import { UiApprovalBroker } from "../../cli/ui/broker.ts";
import { ChatController, type KeyInfo, NO_KEY } from "../../cli/ui/controller.ts";
import { InputHistory } from "../../cli/ui/history.ts";
import { mcpView } from "../../cli/ui/mcp_view.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo } from "./support.ts";
import { fixtureServerToml } from "../mcp/servers.ts";

interface WireMessage {
  role: string;
  content: string;
}

function messages(req: RecordedRequest): WireMessage[] {
  return (req.body as { messages: WireMessage[] }).messages;
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

Deno.test("/new and /clear keep the MCP server process; an MCP prompt's @path stays inside", async () => {
  const pids: number[] = [];
  // "which pid?" asks the server for its pid and answers with it; anything else is echoed.
  const script = (req: RecordedRequest): FakeStep => {
    const all = messages(req);
    const last = all.at(-1)!;
    if (last.role === "tool") {
      pids.push(Number(last.content));
      return { text: `pid ${pids.at(-1)}` };
    }
    if (last.content.includes("which pid?")) {
      return { toolCalls: [{ name: "mcp__fx__pid", arguments: "{}" }] };
    }
    return { text: "ok" };
  };
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({ "notes.txt": "VISIBLE-NOTE" });
  const home = await makeHome(fake.url, MCP_SERVER);
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-outside-" }));
  const key = join(outside, "key.txt");
  await Deno.writeTextFile(key, "OUTSIDE-SECRET");
  const host = await openHost({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
    mcpReadyWaitMs: 15_000,
  });
  const broker = new UiApprovalBroker();
  const backend = await HostBackend.create({ host, broker, mcp: host.mcp && mcpView(host.mcp) });
  let clears = 0;
  const controller = new ChatController({
    backend,
    broker,
    exit: () => {},
    clearScreen: () => clears++,
  });
  const sessions: string[] = [];
  const pidTurn = async () => {
    sessions.push(backend.info().sessionId);
    await controller.submit("which pid?");
  };
  try {
    await pidTurn();
    await controller.submit("/new");
    await pidTurn();
    await controller.submit("/clear");
    assert.equal(clears, 1, "/clear clears the screen");
    await pidTurn();
    assert.equal(new Set(sessions).size, 3, `each command starts a new session: ${sessions}`);
    assert.equal(pids.length, 3, `pids: ${pids}`);
    assert.ok(Number.isInteger(pids[0]) && pids[0] > 1, `the pid tool answered ${pids[0]}`);
    assert.deepEqual(new Set(pids).size, 1, `one server process throughout, got ${pids}`);
    assert.ok(alive(pids[0]), "the server still runs");

    // The server renders the prompt around the argument: all of it is the server's text.
    await controller.submit(`/mcp__fx__greet @${key}`);
    const sent = messages(fake.requests.at(-1)!).findLast((m) => m.role === "user")!.content;
    assert.match(sent, /Hello, @/);
    assert.doesNotMatch(sent, /OUTSIDE-SECRET/);
    const notices = controller.getSnapshot().items.flatMap((i) =>
      i.kind === "notice" ? [i.text] : []
    );
    assert.ok(
      notices.some((n) => n.includes("in MCP prompt /mcp__fx__greet") && n.includes("outside")),
      notices.join("\n"),
    );
  } finally {
    controller.dispose();
    await backend.dispose();
    await host.close();
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("↑/↓ walk the whole history past /mcp entries while MCP prompts exist", async () => {
  const fake = await startFakeLlm({ script: () => ({ text: "ok" }) });
  const repo = await makeRepo({ "src/a.ts": "" });
  const home = await makeHome(fake.url, MCP_SERVER);
  const host = await openHost({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
    mcpReadyWaitMs: 15_000,
  });
  const broker = new UiApprovalBroker();
  const backend = await HostBackend.create({ host, broker, mcp: host.mcp && mcpView(host.mcp) });
  const controller = new ChatController({
    backend,
    broker,
    history: new InputHistory(["first", "/mcp", "read @s", "/mcp__fx__greet Bob", "last"]),
    exit: () => {},
  });
  const press = (key: Partial<KeyInfo>, input = "") =>
    controller.handleInput(input, { ...NO_KEY, ...key });
  const shown = () => controller.getSnapshot().editor.text;
  // `@` completion reads the directory in the background: give it the time to open.
  const settle = () => new Promise((r) => setTimeout(r, 60));
  try {
    assert.ok(
      backend.mcp()!.prompts().some((p) => p.command === "mcp__fx__greet"),
      "the server's prompts are offered as commands",
    );
    const walk: string[] = [];
    for (let i = 0; i < 5; i++) {
      press({ upArrow: true });
      await settle();
      walk.push(shown());
      assert.equal(controller.getSnapshot().overlay, undefined, `no menu over ${shown()}`);
    }
    for (let i = 0; i < 5; i++) {
      press({ downArrow: true });
      await settle();
      walk.push(shown());
    }
    assert.deepEqual(walk, [
      "last",
      "/mcp__fx__greet Bob",
      "read @s",
      "/mcp",
      "first",
      "/mcp",
      "read @s",
      "/mcp__fx__greet Bob",
      "last",
      "",
    ]);

    // Typing opens the menu, which then has the arrows while it is open.
    for (let i = 0; i < 4; i++) press({ upArrow: true });
    assert.equal(shown(), "/mcp");
    controller.handleInput("_", NO_KEY);
    const menu = controller.getSnapshot().overlay;
    assert.ok(menu?.kind === "slash" && menu.items.length > 1, JSON.stringify(menu));
    press({ downArrow: true });
    const moved = controller.getSnapshot().overlay;
    assert.ok(moved?.kind === "slash" && moved.selected === 1);
    assert.equal(shown(), "/mcp_", "the menu took the arrow, not the history");
  } finally {
    controller.dispose();
    await backend.dispose();
    await host.close();
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
