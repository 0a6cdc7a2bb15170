import assert from "node:assert/strict";
import { type FleetItemEnd, fleetPreflight, FleetRefusal, FleetStore, runFleet } from "./fleet.ts";

function refused(items: Parameters<typeof fleetPreflight>[0]): string {
  try {
    fleetPreflight(items);
  } catch (error) {
    assert.ok(error instanceof FleetRefusal);
    return error.message;
  }
  throw new Error("preflight passed");
}

Deno.test("ids default to the 1-based position and dependencies resolve to indices", () => {
  const plan = fleetPreflight([{}, { id: "b", depends_on: ["1"] }, { depends_on: ["b", "1"] }]);
  assert.deepEqual(plan.ids, ["1", "b", "3"]);
  assert.deepEqual(plan.deps, [[], [0], [1, 0]]);
});

Deno.test("preflight names duplicate ids, unknown ids, self-loops and cycles", () => {
  assert.match(
    refused([{ id: "a" }, { id: "b" }, { id: "a" }]),
    /duplicate id "a" \(items 1 and 3\)/,
  );
  assert.match(refused([{ id: "a", depends_on: ["zz"] }, {}]), /"a" depends on unknown id "zz"/);
  assert.match(refused([{ id: "a", depends_on: ["a"] }, {}]), /"a" depends on itself/);
  assert.match(
    refused([
      { id: "a", depends_on: ["c"] },
      { id: "b", depends_on: ["a"] },
      { id: "c", depends_on: ["b"] },
      { id: "d" },
    ]),
    /cycle "b" → "c" → "a" → "b"$/,
  );
});

Deno.test("only items that may run at once need disjoint claims; an edge lets a pair share", () => {
  assert.match(
    refused([{ id: "x", write_paths: ["src"] }, { id: "y", write_paths: ["src/api/"] }]),
    /"x" and "y" may run at the same time but both claim src/,
  );
  fleetPreflight([
    { id: "impl", write_paths: ["src"] },
    { id: "review", write_paths: ["src"], depends_on: ["impl"] },
    { id: "docs", write_paths: ["docs"] },
  ]);
  // Transitively ordered pairs share too; read-only items never conflict.
  fleetPreflight([
    { id: "a", write_paths: ["src"] },
    { id: "b", depends_on: ["a"], read_only: true, write_paths: ["src"] },
    { id: "c", depends_on: ["b"], write_paths: ["src"] },
  ]);
});

type Script = Record<string, { end: FleetItemEnd; ms?: number }>;

async function drive(
  items: Parameters<typeof fleetPreflight>[0],
  script: Script,
  failFast = false,
) {
  const plan = fleetPreflight(items);
  const log: string[] = [];
  const started: string[] = [];
  const out = await runFleet<string>({
    plan,
    failFast,
    run: async (i) => {
      const id = plan.ids[i];
      started.push(id);
      const step = script[id] ?? { end: { state: "done" } };
      await new Promise((r) => setTimeout(r, step.ms ?? 5));
      return { result: id, end: step.end };
    },
    onState: (i, state) => log.push(`${plan.ids[i]}:${state}`),
  });
  return { plan, out, log, started, states: out.map((o) => o.state) };
}

const GRAPH = [
  { id: "research", read_only: true },
  { id: "backend", depends_on: ["research"], write_paths: ["server"] },
  { id: "frontend", depends_on: ["research"], write_paths: ["web"] },
  { id: "integration", depends_on: ["backend", "frontend"], write_paths: ["tests"] },
  { id: "review", depends_on: ["integration"], read_only: true },
  { id: "docs" },
];

Deno.test("items start when their dependencies finish; unordered ones overlap", async () => {
  const r = await drive(GRAPH, { backend: { end: { state: "done" }, ms: 40 } });
  assert.deepEqual(r.states, ["done", "done", "done", "done", "done", "done"]);
  const at = (x: string) => r.log.indexOf(x);
  assert.ok(at("research:done") < at("backend:running"));
  assert.ok(at("frontend:running") < at("backend:done"), "siblings overlap");
  assert.ok(at("backend:done") < at("integration:running"));
  assert.ok(at("integration:done") < at("review:running"));
  assert.ok(at("docs:running") < at("research:done"), "an independent item starts at once");
});

Deno.test("a failed item skips exactly its downstream branch; other branches go on", async () => {
  const r = await drive(GRAPH, { frontend: { end: { state: "failed", reason: "boom" } } });
  assert.deepEqual(r.states, ["done", "done", "failed", "skipped", "skipped", "done"]);
  assert.match(r.out[3].reason!, /depends on "frontend" \(failed\)/);
  assert.match(r.out[4].reason!, /depends on "integration" \(skipped\)/);
  assert.ok(!r.started.includes("integration") && !r.started.includes("review"));
});

Deno.test("an item whose adjudicated status is not complete skips its dependents", async () => {
  const r = await drive(GRAPH, { backend: { end: { state: "done", status: "partial" } } });
  assert.deepEqual(r.states, ["done", "done", "done", "skipped", "skipped", "done"]);
  assert.match(r.out[3].reason!, /depends on "backend" \(status partial\)/);
  const ok = await drive(GRAPH, { backend: { end: { state: "done", status: "complete" } } });
  assert.equal(ok.states[3], "done");
});

Deno.test("fail_fast stops starting new items and lets running ones finish", async () => {
  const r = await drive(
    [{ id: "slow" }, { id: "bad" }, { id: "later", depends_on: ["bad"] }, {
      id: "after",
      depends_on: ["slow"],
    }],
    { slow: { end: { state: "done" }, ms: 60 }, bad: { end: { state: "failed" } } },
    true,
  );
  assert.deepEqual(r.states, ["done", "failed", "skipped", "skipped"]);
  assert.match(r.out[3].reason!, /fail_fast: "bad" failed/);
  assert.ok(!r.started.includes("after"));
  const free = await drive(
    [{ id: "slow" }, { id: "bad" }, { id: "after", depends_on: ["slow"] }],
    { slow: { end: { state: "done" }, ms: 60 }, bad: { end: { state: "failed" } } },
  );
  assert.deepEqual(free.states, ["done", "failed", "done"]);
});

Deno.test("a resumed plan keeps the items that finished and reruns the rest", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const args = { tasks: [{ prompt: "a" }, { prompt: "b" }] };
    const first = await FleetStore.open<string>(dir, args);
    await first!.save("1", { result: "kept", end: { state: "done" } });
    await first!.save("2", { result: "lost", end: { state: "failed" } });
    const again = await FleetStore.open<string>(dir, args);
    const finished = again!.finished(["1", "2"]);
    assert.deepEqual([...finished.keys()], [0]);
    const ran: number[] = [];
    const out = await runFleet<string>({
      plan: fleetPreflight([{}, {}]),
      finished,
      run: (i) => {
        ran.push(i);
        return Promise.resolve({ result: "new", end: { state: "done" } });
      },
    });
    assert.deepEqual(ran, [1]);
    assert.deepEqual(out.map((o) => o.result), ["kept", "new"]);
    const other = await FleetStore.open<string>(dir, { tasks: [{ prompt: "c" }, { prompt: "b" }] });
    assert.equal(other!.finished(["1", "2"]).size, 0, "another plan starts afresh");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
