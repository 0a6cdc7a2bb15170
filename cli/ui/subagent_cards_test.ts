import assert from "node:assert/strict";
import type { AgentEvent } from "../../core/agent/events.ts";
import { makeStyles } from "./style.ts";
import {
  type Cards,
  CHILD_TOOLS_KEPT,
  CLOSED,
  finishedCardLines,
  foldCards,
  liveCardLines,
  nextOpen,
  type OpenCards,
} from "./subagent_cards.ts";

const plain = makeStyles(false);

function start(id: string, name: string): AgentEvent {
  return { type: "tool_start", call: { id, name, arguments: "{}" } };
}

function end(id: string, name: string, isError = false): AgentEvent {
  return {
    type: "tool_end",
    call: { id, name, arguments: "{}" },
    result: { content: "", isError },
    durationMs: 1,
  };
}

function usage(prompt: number, completion: number, cost?: number): AgentEvent {
  const u = {
    promptTokens: prompt,
    completionTokens: completion,
    cacheHitTokens: 0,
    cacheMissTokens: prompt,
  };
  return {
    type: "usage",
    turn: 1,
    usage: u,
    cacheHitRatio: 0,
    totals: u,
    ...(cost !== undefined ? { cost, currency: "USD" } : {}),
  };
}

function fold(cards: Cards, ...details: Record<string, unknown>[]): Cards {
  return details.reduce((c, d) => foldCards(c, d), cards);
}

Deno.test("a child's card lists its tool calls with ✓ and ✗ and adds up its tokens and cost", () => {
  const cards = fold(
    {},
    { child: "c1", event: start("a", "read_file") },
    { child: "c1", event: usage(1000, 200, 0.001) },
    { child: "c1", event: end("a", "read_file") },
    { child: "c1", event: start("b", "grep") },
    { child: "c1", event: end("b", "grep", true) },
    { child: "c1", event: start("c", "ls") },
    { child: "c1", event: usage(30, 0, 0.0002) },
    { child: "c2", event: start("d", "glob") },
  );
  const [c1, c2] = cards.children!;
  assert.deepEqual(c1.tools.map((t) => `${t.name}:${t.state}`), [
    "read_file:ok",
    "grep:error",
    "ls:running",
  ]);
  assert.equal(c1.calls, 3);
  assert.equal(c1.failed, 1);
  assert.equal(c1.tokens, 1230);
  assert.ok(Math.abs(c1.cost! - 0.0012) < 1e-12);
  assert.equal(c1.activity, "ls");
  assert.equal(c2.activity, "glob");
  assert.equal(c2.cost, undefined, "an unpriced child shows no cost");

  const closed = liveCardLines(cards, CLOSED, 20, plain);
  assert.deepEqual(closed, ["  ▸ c1 · ls · 1.2k tok · $0.0012", "  ▸ c2 · glob · 0 tok"]);
  const open = liveCardLines(cards, { kind: "one", id: "c1" }, 20, plain);
  assert.deepEqual(open, [
    "  ▾ c1 · 3 tools, 1 failed · 1.2k tok · $0.0012",
    "      ✓ read_file",
    "      ✗ grep",
    "      ◐ ls",
    "  ▸ c2 · glob · 0 tok",
  ]);
  const finished = finishedCardLines(cards, new Map([["c1", "completed"]]), plain);
  assert.deepEqual(finished, [
    "  ↳ c1 · 3 tools, 1 failed · 1.2k tok · $0.0012 · completed",
    "  ↳ c2 · 1 tool · 0 tok",
  ]);
});

Deno.test("details that are not about children leave the cards as they were", () => {
  const cards: Cards = {};
  assert.equal(foldCards(cards, undefined), cards);
  assert.equal(foldCards(cards, { bytes: 10 }), cards);
  assert.equal(foldCards(cards, { child: 1, event: start("a", "x") }), cards);
  assert.equal(foldCards(cards, { child: "c", event: "tool_start" }), cards);
  assert.equal(foldCards(cards, { fleet: { item: "a", state: "paused" } }), cards);
  assert.equal(foldCards(cards, { fleet: { state: "running" } }), cards);
});

Deno.test("a card keeps its newest tool calls and counts the older ones", () => {
  let cards: Cards = {};
  for (let i = 0; i < CHILD_TOOLS_KEPT + 30; i++) {
    cards = fold(cards, { child: "c", event: start(`t${i}`, `tool${i}`) }, {
      child: "c",
      event: end(`t${i}`, `tool${i}`),
    });
  }
  const [c] = cards.children!;
  assert.equal(c.tools.length, CHILD_TOOLS_KEPT);
  assert.equal(c.calls, CHILD_TOOLS_KEPT + 30);
  assert.equal(c.tools.at(-1)!.name, `tool${CHILD_TOOLS_KEPT + 29}`);
  const lines = liveCardLines(cards, { kind: "all" }, 6, plain);
  assert.equal(lines.length, 6);
  assert.deepEqual(lines.slice(0, 2), [
    `  ▾ c · ${CHILD_TOOLS_KEPT + 30} tools · 0 tok`,
    `      … ${CHILD_TOOLS_KEPT + 30 - 4} earlier`,
  ]);
  assert.equal(lines.at(-1), `      ✓ tool${CHILD_TOOLS_KEPT + 29}`);
});

Deno.test("Ctrl-T opens each card in turn, then all of them, then none", () => {
  const ids = ["a", "b", "c"];
  const seen: string[] = [];
  let open: OpenCards = CLOSED;
  for (let i = 0; i < 5; i++) {
    open = nextOpen(open, ids);
    seen.push(open.kind === "one" ? open.id : open.kind);
  }
  assert.deepEqual(seen, ["a", "b", "c", "all", "none"]);
  // One card: open, then closed; no card: nothing to open; a card that ended: the first.
  assert.deepEqual(nextOpen({ kind: "one", id: "a" }, ["a"]), CLOSED);
  assert.deepEqual(nextOpen(CLOSED, []), CLOSED);
  assert.deepEqual(nextOpen({ kind: "one", id: "gone" }, ids), { kind: "one", id: "a" });
});

Deno.test("fleet state changes map to waiting, running, done, failed and skipped with costs", () => {
  const u = (t: number, cost: number) => ({
    promptTokens: t,
    completionTokens: 0,
    cacheHitTokens: 0,
    cacheMissTokens: t,
    cost,
    currency: "USD",
  });
  const cards = fold(
    {},
    { fleet: { item: "research", state: "waiting" } },
    { fleet: { item: "backend", state: "waiting" } },
    { fleet: { item: "frontend", state: "waiting" } },
    { fleet: { item: "review", state: "waiting" } },
    { fleet: { item: "docs", state: "waiting" } },
    { fleet: { item: "research", state: "running", child: "s-research" } },
    { child: "s-research", item: "research", event: start("r1", "grep") },
    { child: "s-research", item: "research", event: usage(500, 0, 0.0005) },
    { fleet: { item: "research", state: "done", status: "complete", usage: u(600, 0.0006) } },
    { fleet: { item: "backend", state: "running", child: "s-backend" } },
    { child: "s-backend", item: "backend", event: start("b1", "edit_file") },
    { child: "s-backend", item: "backend", event: usage(1500, 0, 0.0015) },
    { fleet: { item: "frontend", state: "failed", reason: "model error" } },
    { fleet: { item: "review", state: "skipped", reason: "frontend failed" } },
  );
  assert.deepEqual(cards.fleet!.map((f) => `${f.id}:${f.state}`), [
    "research:done",
    "backend:running",
    "frontend:failed",
    "review:skipped",
    "docs:waiting",
  ]);
  assert.equal(cards.fleet![0].child, "s-research", "later changes keep what earlier ones said");
  const lines = liveCardLines(cards, CLOSED, 20, plain);
  assert.deepEqual(lines, [
    "  fleet: 1 waiting · 1 running · 1 done · 1 failed · 1 skipped · 2.1k tok · $0.0021",
    "  ✓ ▸ research · done (complete) · 600 tok · $0.0006",
    "  ◐ ▸ backend · running · edit_file · 1.5k tok · $0.0015",
    "  ✗ frontend · failed · model error",
    "  ⊘ review · skipped · frontend failed",
    "  ○ docs · waiting",
  ]);
  const open = liveCardLines(cards, { kind: "one", id: "s-backend" }, 20, plain);
  assert.deepEqual(open.slice(2, 4), [
    "  ◐ ▾ backend · running · edit_file · 1.5k tok · $0.0015",
    "      ◐ edit_file",
  ]);
  const finished = finishedCardLines(cards, new Map(), plain);
  assert.equal(finished[1], "  ✓ research · done (complete) · 1 tool · 600 tok · $0.0006");
  assert.equal(finished[3], "  ✗ frontend · failed · model error");
  assert.equal(finished.length, 6);
});

Deno.test("a fleet larger than its rows keeps the summary and the running and failed items", () => {
  let cards: Cards = {};
  for (let i = 1; i <= 64; i++) cards = fold(cards, { fleet: { item: `i${i}`, state: "done" } });
  cards = fold(
    cards,
    { fleet: { item: "i40", state: "running", child: "s40" } },
    { child: "s40", item: "i40", event: start("x", "bash") },
    { fleet: { item: "i50", state: "failed", reason: "exit 1" } },
  );
  for (const max of [1, 2, 3, 5, 8]) {
    const lines = liveCardLines(cards, { kind: "all" }, max, plain);
    assert.ok(lines.length <= max, `${lines.length} lines for ${max}`);
    assert.match(lines[0], /^ {2}fleet: 1 running · 62 done · 1 failed/);
  }
  const five = liveCardLines(cards, CLOSED, 5, plain);
  assert.deepEqual(five.map((l) => l.slice(0, 12)), [
    "  fleet: 1 r",
    "  ✓ i1 · don",
    "  ◐ ▸ i40 · ",
    "  ✗ i50 · fa",
    "  … 61 more",
  ]);
});

Deno.test("open cards share the rows left for their tool lists and never pass them", () => {
  let cards: Cards = {};
  for (const id of ["c1", "c2"]) {
    for (let i = 0; i < 5; i++) {
      cards = fold(cards, { child: id, event: start(`${id}-${i}`, `t${i}`) });
    }
  }
  for (let max = 1; max <= 14; max++) {
    for (const open of [CLOSED, { kind: "one", id: "c1" } as const, { kind: "all" } as const]) {
      const lines = liveCardLines(cards, open, max, plain);
      assert.ok(lines.length <= max, `${JSON.stringify(open)} in ${max}: ${lines.length}`);
    }
  }
  // Eight rows: two headers, and three tool rows for each open card.
  const lines = liveCardLines(cards, { kind: "all" }, 8, plain);
  assert.deepEqual(lines.map((l) => l.trim()), [
    "▾ c1 · 5 tools · 0 tok",
    "… 3 earlier",
    "◐ t3",
    "◐ t4",
    "▾ c2 · 5 tools · 0 tok",
    "… 3 earlier",
    "◐ t3",
    "◐ t4",
  ]);
});
