/**
 * Subagent cards through the controller and the real layout: a real `task` call with two
 * children against the fake LLM server, and a fleet from synthetic `tool_progress` events that
 * follow the fleet tool's contract.
 */
import assert from "node:assert/strict";
import { renderToString } from "ink";
import type { AgentEvent, UsageTotals } from "../../core/agent/events.ts";
import type { RecordedRequest } from "../../tests/fake_llm/mod.ts";
import { startUiSession } from "../../tests/support/ui_session.ts";
import type { ChatBackend } from "./backend.ts";
import { UiApprovalBroker } from "./broker.ts";
import { Layout } from "./components/layout.tsx";
import { ItemView } from "./components/items.tsx";
import { ChatController, type ChatSnapshot, NO_KEY } from "./controller.ts";
import { makeStyles, stripAnsi } from "./style.ts";

const plain = makeStyles(false);
const color = makeStyles(true);
const CTRL_T = { ...NO_KEY, ctrl: true };

function frame(snap: ChatSnapshot, rows: number, width = 80, styles = plain): string[] {
  const out = renderToString(
    <Layout snapshot={snap} width={width} rows={rows} styles={styles} />,
    { columns: width },
  );
  return stripAnsi(out).split("\n");
}

function finished(snap: ChatSnapshot, name: string): string {
  const item = snap.items.findLast((i) => i.kind === "tool" && i.call.name === name);
  assert.ok(item, `a finished ${name} card`);
  return stripAnsi(
    renderToString(<ItemView item={item} width={100} styles={plain} />, { columns: 100 }),
  );
}

interface Msg {
  role: string;
  content: string | null;
}

function messages(req: RecordedRequest): Msg[] {
  return (req.body as { messages: Msg[] }).messages;
}

const PRICE = 'price = { cache_hit = 0.1, input = 1, output = 2, currency = "USD" }';

Deno.test("a running task shows a card per child; Ctrl-T opens one with its tools and cost", async () => {
  let release = false;
  const s = await startUiSession({
    files: { "a.txt": "alpha\n", "b.txt": "beta\n" },
    toml: PRICE,
    script: (req) => {
      const all = messages(req);
      const system = all.find((m) => m.role === "system")?.content ?? "";
      const last = all.at(-1)!;
      if (!/subagent/.test(system)) {
        return last.role === "tool" ? { text: "Both children reported." } : {
          toolCalls: [{
            name: "task",
            arguments: JSON.stringify({
              tasks: [
                { prompt: "first: read a.txt", read_only: true },
                { prompt: "second: read b.txt", read_only: true },
              ],
            }),
          }],
        };
      }
      const task = all.find((m) => m.role === "user" && /first|second/.test(m.content ?? ""))!;
      const file = /first/.test(task.content!) ? "a.txt" : "b.txt";
      const tools = all.filter((m) => m.role === "tool").length;
      if (tools === 0) {
        return { toolCalls: [{ name: "read_file", arguments: JSON.stringify({ path: file }) }] };
      }
      if (tools === 1 && file === "a.txt") {
        return { toolCalls: [{ name: "read_file", arguments: '{"path":"missing.txt"}' }] };
      }
      // Each child waits, listing the directory, until the test has looked at its card.
      if (!release) return { toolCalls: [{ name: "ls", arguments: "{}" }], delayMs: 20 };
      return { text: `${file} read` };
    },
  });
  try {
    s.type("delegate");
    s.press({ return: true });
    const live = () => s.controller.getSnapshot().live;
    await s.until(
      () =>
        live().tools[0]?.children?.length === 2 &&
        live().tools[0].children!.every((c) => c.calls >= 2),
      "two children with tool calls",
    );
    // A card per child, closed, with its spend: under the task (`▸ <session>`) or, when the
    // call runs its tasks as a fleet, under their items (`◐ ▸ <item>`).
    const closed = frame(s.controller.getSnapshot(), 40);
    const heads = closed.filter((l) => / ▸ \S+ · .* tok/.test(l));
    assert.equal(heads.length, 2, closed.join("\n"));
    assert.ok(heads.every((l) => / tok · \$\d/.test(l)), `priced children show cost\n${heads}`);
    assert.ok(closed.some((l) => l.includes("ctrl-t cards")), "the activity line names the key");

    const children = live().tools[0].children!;
    s.controller.handleInput("t", CTRL_T);
    const open = live().open;
    assert.ok(open?.kind === "one", JSON.stringify(open));
    const first = children.find((c) => c.id === open.id)!;
    const opened = frame(s.controller.getSnapshot(), 40).join("\n");
    assert.equal(opened.match(/▾/g)?.length, 1, opened);
    assert.equal(opened.match(/▸/g)?.length, 1, opened);
    // The open card lists the child's own calls, in order, with ✓ and ✗.
    const listed = opened.split("\n").filter((l) => /^ {6}[✓✗◐] /.test(l)).map((l) => l.trim());
    const expected = first.tools.map((t) =>
      `${{ ok: "✓", error: "✗", running: "◐" }[t.state]} ${t.name}`
    );
    assert.deepEqual(listed, expected.slice(-listed.length), opened);
    assert.ok(listed.some((l) => /^[✓✗] read_file$/.test(l)), opened);
    // Down to 10 rows the frame stays below the terminal height with the card open.
    for (const rows of [10, 12, 16, 24]) {
      for (const styles of [plain, color]) {
        const lines = frame(s.controller.getSnapshot(), rows, 60, styles);
        assert.ok(lines.length <= rows - 1, `${rows} rows: ${lines.length}\n${lines.join("\n")}`);
      }
    }
    s.controller.handleInput("t", CTRL_T);
    assert.ok(live().open?.kind === "one" && live().open !== open, "the next card");
    s.controller.handleInput("t", CTRL_T);
    assert.deepEqual(live().open, { kind: "all" });
    assert.equal(frame(s.controller.getSnapshot(), 40).join("\n").match(/▾/g)?.length, 2);
    s.controller.handleInput("t", CTRL_T);
    assert.deepEqual(live().open, { kind: "none" });

    release = true;
    await s.controller.idle();
    const card = finished(s.controller.getSnapshot(), "task");
    // One compact line per child with its spend: `↳ <session> · … · completed`, or the
    // fleet's `✓ <item> · done …`.
    const summary = card.split("\n").filter((l) => /^ {2}(↳ [0-9a-f]{8}|✓ \S+) · /.test(l));
    assert.equal(summary.length, 2, card);
    for (const line of summary) assert.match(line, / · [\d.k]+ tok · \$\d\.\d{4}/, card);
    assert.doesNotMatch(card, /[▸▾]/, "a finished card has nothing to open");
    assert.equal(s.controller.getSnapshot().live.open, undefined, "cards start closed next time");
  } finally {
    await s.close();
  }
});

Deno.test("Ctrl-T with no subagent running says what it is for", async () => {
  const s = await startUiSession({ script: [] });
  try {
    s.controller.handleInput("t", CTRL_T);
    assert.match(s.controller.getSnapshot().hint ?? "", /Ctrl-T opens a subagent's card/);
    assert.equal(s.controller.getSnapshot().live.open, undefined);
  } finally {
    await s.close();
  }
});

/** A backend whose turn is a list of events the test hands over one batch at a time. */
function syntheticBackend(): { backend: ChatBackend; push(...e: AgentEvent[]): void; end(): void } {
  const queue: AgentEvent[] = [];
  let wake = () => {};
  let ended = false;
  const backend: ChatBackend = {
    info: () => ({
      model: "fake/fake-model",
      contextWindow: 128_000,
      compactRatio: 0.8,
      workspaceRoot: "/work",
      sessionId: "parent-session",
    }),
    warnings: () => [],
    history: () => [],
    async *run(): AsyncIterable<AgentEvent> {
      while (true) {
        while (queue.length) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((r) => wake = r);
      }
    },
    models: () => [],
    newConversation: () => Promise.resolve(),
    switchModel: () => Promise.resolve(),
    setEffort: () => Promise.resolve(),
    compact: () => Promise.resolve([]),
    sessions: () => Promise.resolve([]),
    resume: () => Promise.resolve(),
    mcp: () => undefined,
    dispose: () => Promise.resolve(),
  };
  return {
    backend,
    push: (...events) => {
      queue.push(...events);
      wake();
    },
    end: () => {
      ended = true;
      wake();
    },
  };
}

function totals(tokens: number, cost: number): UsageTotals {
  return {
    promptTokens: tokens,
    completionTokens: 0,
    cacheHitTokens: 0,
    cacheMissTokens: tokens,
    cost,
    currency: "USD",
  };
}

const FLEET_CALL = { id: "f1", name: "fleet", arguments: '{"items":[]}' };

function progress(detail: Record<string, unknown>): AgentEvent {
  return { type: "tool_progress", callId: "f1", message: "fleet", detail };
}

function state(item: string, s: string, extra: Record<string, unknown> = {}): AgentEvent {
  return progress({ fleet: { item, state: s, ...extra } });
}

function childEvent(child: string, item: string, event: AgentEvent): AgentEvent {
  return progress({ child, item, event });
}

Deno.test("a fleet shows as a live list of its items' states and costs, within the rows", async () => {
  const { backend, push, end } = syntheticBackend();
  const controller = new ChatController({ backend, broker: new UiApprovalBroker(), exit() {} });
  const live = () => controller.getSnapshot().live;
  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 5000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  try {
    void controller.submit("run the fleet");
    const ids = ["research", "backend", "frontend", "integration", "review"];
    push(
      { type: "tool_start", call: FLEET_CALL },
      ...ids.map((id) => state(id, "waiting")),
      state("research", "running", { child: "s-research" }),
      childEvent("s-research", "research", {
        type: "tool_start",
        call: { id: "r1", name: "grep", arguments: "{}" },
      }),
    );
    await until(() => live().tools[0]?.children?.length === 1, "the research child");
    let screen = frame(controller.getSnapshot(), 40).join("\n");
    assert.match(screen, /fleet: 4 waiting · 1 running · 0 tok/);
    assert.match(screen, /◐ ▸ research · running · grep · 0 tok/);
    assert.match(screen, /○ review · waiting/);

    push(
      childEvent("s-research", "research", {
        type: "tool_end",
        call: { id: "r1", name: "grep", arguments: "{}" },
        result: { content: "", isError: false },
        durationMs: 1,
      }),
      state("research", "done", { status: "complete", usage: totals(1200, 0.0012) }),
      state("backend", "running", { child: "s-backend" }),
      state("frontend", "running", { child: "s-frontend" }),
      childEvent("s-backend", "backend", {
        type: "tool_start",
        call: { id: "b1", name: "edit_file", arguments: "{}" },
      }),
      childEvent("s-frontend", "frontend", {
        type: "tool_start",
        call: { id: "w1", name: "write_file", arguments: "{}" },
      }),
      childEvent("s-frontend", "frontend", {
        type: "tool_end",
        call: { id: "w1", name: "write_file", arguments: "{}" },
        result: { content: "outside the claim", isError: true },
        durationMs: 1,
      }),
      state("frontend", "failed", { reason: "write outside its claim" }),
      state("integration", "skipped", { reason: "frontend failed" }),
      state("review", "skipped", { reason: "frontend failed" }),
    );
    await until(
      () => live().tools[0]?.fleet?.find((f) => f.id === "review")?.state === "skipped",
      "the skipped branch",
    );
    // Ctrl-T goes through the items' children in the fleet's order.
    controller.handleInput("t", CTRL_T);
    assert.deepEqual(live().open, { kind: "one", id: "s-research" });
    controller.handleInput("t", CTRL_T);
    assert.deepEqual(live().open, { kind: "one", id: "s-backend" });
    screen = frame(controller.getSnapshot(), 40).join("\n");
    assert.match(
      screen,
      /fleet: 1 running · 1 done · 1 failed · 2 skipped · 1\.2k tok · \$0\.0012/,
    );
    assert.match(screen, /✓ ▸ research · done \(complete\) · 1\.2k tok · \$0\.0012/);
    assert.match(screen, /◐ ▾ backend · running · edit_file · 0 tok\n {6}◐ edit_file/);
    assert.match(screen, /✗ ▸ frontend · failed · 0 tok · write outside its claim/);
    assert.match(screen, /⊘ integration · skipped · frontend failed/);
    for (const rows of [10, 11, 14, 20]) {
      const lines = frame(controller.getSnapshot(), rows, 50);
      assert.ok(lines.length <= rows - 1, `${rows} rows: ${lines.length}\n${lines.join("\n")}`);
      assert.ok(lines.some((l) => l.includes("fleet:")), `the summary stays\n${lines.join("\n")}`);
    }

    push(
      state("backend", "done", { status: "partial", usage: totals(800, 0.0008) }),
      {
        type: "tool_end",
        call: FLEET_CALL,
        result: { content: "research: complete\nbackend: partial", isError: false },
        durationMs: 20,
      },
      {
        type: "done",
        status: "completed",
        text: "",
        turns: 1,
        toolCalls: 1,
        usage: totals(0, 0),
      },
    );
    end();
    await controller.idle();
    const card = finished(controller.getSnapshot(), "fleet");
    assert.match(card, /fleet: 2 done · 1 failed · 2 skipped · 2k tok · \$0\.0020/);
    assert.match(card, /✓ backend · done \(partial\) · 1 tool · 800 tok · \$0\.0008/);
    assert.match(card, /✗ frontend · failed · 1 tool, 1 failed · 0 tok · write outside its claim/);
    assert.match(card, /⊘ review · skipped · frontend failed/);
    assert.doesNotMatch(card, /[▸▾]/, "a finished card has nothing to open");
  } finally {
    controller.dispose();
  }
});

Deno.test("a real fleet shows waiting, running, done, failed and skipped items live", async () => {
  let release = false;
  const GRAPH = {
    tasks: [
      { id: "a", prompt: "alpha: go", profile: "nobody" },
      { id: "b", prompt: "bravo: go", read_only: true, depends_on: ["a"] },
      { id: "c", prompt: "charlie: go", read_only: true, depends_on: ["b"] },
      { id: "d", prompt: "delta: go", read_only: true },
      { id: "e", prompt: "echo: go", read_only: true, depends_on: ["d"] },
    ],
  };
  const s = await startUiSession({
    toml: PRICE,
    script: (req) => {
      const all = messages(req);
      const system = all.find((m) => m.role === "system")?.content ?? "";
      if (!/subagent/.test(system)) {
        return all.at(-1)!.role === "tool"
          ? { text: "The fleet finished." }
          : { toolCalls: [{ name: "task", arguments: JSON.stringify(GRAPH) }] };
      }
      const delta = all.some((m) => m.role === "user" && m.content?.includes("delta: go"));
      if (delta && !release) return { toolCalls: [{ name: "ls", arguments: "{}" }], delayMs: 20 };
      return { text: delta ? "delta done" : "echo done" };
    },
  });
  try {
    s.type("run the graph");
    s.press({ return: true });
    const fleet = () => s.controller.getSnapshot().live.tools[0]?.fleet ?? [];
    const states = () => fleet().map((f) => `${f.id}:${f.state}`).join(" ");
    const delta = () =>
      s.controller.getSnapshot().live.tools[0]?.children?.find((c) => c.item === "d");
    await s.until(
      () =>
        states() === "a:failed b:skipped c:skipped d:running e:waiting" &&
        (delta()?.calls ?? 0) >= 1 && delta()!.tokens > 0,
      "the failed branch skipped while d runs",
    );
    const screen = frame(s.controller.getSnapshot(), 40).join("\n");
    assert.match(screen, /fleet: 1 waiting · 1 running · 1 failed · 2 skipped/);
    assert.match(screen, /✗ a · failed · [^\n]*nobody/);
    assert.match(screen, /⊘ b · skipped · [^\n]*"a"/);
    assert.match(screen, /◐ ▸ d · running · (ls|ls ✓) · [\d.k]+ tok · \$\d/);
    assert.match(screen, /○ e · waiting/);
    release = true;
    await s.controller.idle();
    const card = finished(s.controller.getSnapshot(), "task");
    assert.match(card, /fleet: 2 done · 1 failed · 2 skipped · [\d.k]+ tok · \$\d\.\d{4}/);
    assert.match(card, /✓ e · done[^\n]* · 0 tools · [\d.k]+ tok · \$\d\.\d{4}/);
  } finally {
    await s.close();
  }
});

Deno.test("children's events render once per frame like the parent's", async () => {
  const { backend, push, end } = syntheticBackend();
  const controller = new ChatController({
    backend,
    broker: new UiApprovalBroker(),
    exit() {},
    frameMs: 16,
  });
  let renders = 0;
  const unsubscribe = controller.subscribe(() => renders++);
  try {
    const done = controller.submit("many children");
    push({ type: "tool_start", call: FLEET_CALL });
    const events: AgentEvent[] = [];
    for (let i = 0; i < 1500; i++) {
      const child = `s-${i % 6}`;
      const call = { id: `c${i}`, name: "read_file", arguments: "{}" };
      events.push(
        childEvent(child, `item-${i % 6}`, { type: "tool_start", call }),
        childEvent(child, `item-${i % 6}`, {
          type: "tool_end",
          call,
          result: { content: "" },
          durationMs: 1,
        }),
      );
    }
    renders = 0;
    const started = performance.now();
    push(...events);
    const live = () => controller.getSnapshot().live.tools[0]?.children ?? [];
    while (live().reduce((n, c) => n + c.calls, 0) < 1500) {
      await new Promise((r) => setTimeout(r, 1));
    }
    const frames = Math.ceil((performance.now() - started) / 16);
    assert.ok(renders <= frames + 4, `${renders} renders in ${frames} frames for 3000 events`);
    assert.equal(live().length, 6);
    assert.ok(live().every((c) => c.tools.length <= 50 && c.calls === 250));
    end();
    await done;
  } finally {
    unsubscribe();
    controller.dispose();
  }
});
