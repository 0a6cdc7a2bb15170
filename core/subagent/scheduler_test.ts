import assert from "node:assert/strict";
import { Scheduler } from "./scheduler.ts";

const signal = () => AbortSignal.timeout(2_000);

/** Whether `promise` settles within a few ticks. */
async function settles(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 1));
  return done;
}

Deno.test("a writer without a claim waits for claimed writers and holds them off", async () => {
  const s = new Scheduler({ concurrency: 6, writers: 3 });
  const claim = await s.acquire({ kind: "claim", roots: ["/w/a"] }, { signal: signal() });
  const whole = s.acquire({ kind: "workspace" }, { signal: signal() });
  assert.equal(await settles(whole), false, "the whole workspace waits for a claimed writer");
  claim.release();
  const held = await whole;
  const other = s.acquire({ kind: "claim", roots: ["/w/b"] }, { signal: signal() });
  assert.equal(await settles(other), false, "a claimed writer waits for the whole workspace");
  assert.equal(await settles(s.acquire({ kind: "read" }, { signal: signal() })), true);
  held.release();
  (await other).release();
});

Deno.test("claims run together up to the writer limit; readers up to the concurrency", async () => {
  const s = new Scheduler({ concurrency: 3, writers: 2 });
  const a = await s.acquire({ kind: "claim", roots: ["/w/a"] }, { signal: signal() });
  const b = await s.acquire({ kind: "claim", roots: ["/w/b"] }, { signal: signal() });
  assert.equal(
    await settles(s.acquire({ kind: "claim", roots: ["/w/c"] }, { signal: signal() })),
    false,
  );
  const r = await s.acquire({ kind: "read" }, { signal: signal() });
  assert.equal(await settles(s.acquire({ kind: "read" }, { signal: signal() })), false);
  a.release();
  b.release();
  r.release();
});

Deno.test("two claims landing on one file: the second writer is refused it", async () => {
  const s = new Scheduler({ concurrency: 6, writers: 3 });
  const a = await s.acquire({ kind: "claim", roots: ["/w/src"] }, { signal: signal() });
  const b = await s.acquire({ kind: "claim", roots: ["/w/src"] }, { signal: signal() });
  assert.equal(a.touch("/w/src/x.ts"), true);
  assert.equal(b.touch("/w/src/x.ts"), false);
  assert.equal(b.touch("/w/src/y.ts"), true);
  a.release();
  assert.equal(b.touch("/w/src/x.ts"), true);
  b.release();
});

Deno.test("a queued child honours its own cancellation", async () => {
  const s = new Scheduler({ concurrency: 1, writers: 1 });
  const a = await s.acquire({ kind: "read" }, { signal: signal() });
  const controller = new AbortController();
  const queued = s.acquire({ kind: "read" }, { signal: controller.signal });
  controller.abort(new Error("stop"));
  await assert.rejects(queued, /stop/);
  a.release();
  assert.equal(s.running, 0);
});

Deno.test("a whole-workspace writer that wrote through path tools narrows to its files", async () => {
  const s = new Scheduler({ concurrency: 6, writers: 3 });
  const whole = await s.acquire({ kind: "workspace" }, { signal: signal() });
  const apart = s.acquire({ kind: "claim", roots: ["/w/b"] }, { signal: signal() });
  const onIt = s.acquire({ kind: "claim", roots: ["/w/a"] }, { signal: signal() });
  assert.equal(await settles(apart), false, "nothing written yet: the whole workspace is held");
  assert.equal(whole.touch("/w/a/x.ts"), true);
  assert.equal(await settles(apart), true, "a claim apart from the written file starts");
  assert.equal(await settles(onIt), false, "a claim holding the written file still waits");
  assert.equal(
    await settles(s.acquire({ kind: "workspace" }, { signal: signal() })),
    false,
    "another whole-workspace writer still waits",
  );
  (await apart).release();
  whole.release();
  (await onIt).release();
});

Deno.test("a bash or MCP change makes a narrowed reservation whole again", async () => {
  const s = new Scheduler({ concurrency: 6, writers: 3 });
  const whole = await s.acquire({ kind: "workspace" }, { signal: signal() });
  assert.equal(whole.touch("/w/a/x.ts"), true);
  whole.widen();
  const apart = s.acquire({ kind: "claim", roots: ["/w/b"] }, { signal: signal() });
  assert.equal(await settles(apart), false, "whole again after an unattributed change");
  assert.equal(whole.touch("/w/a/y.ts"), true);
  assert.equal(await settles(apart), false, "a later path write does not narrow it again");
  whole.release();
  (await apart).release();
});

Deno.test("a change before any path write keeps the reservation whole", async () => {
  const s = new Scheduler({ concurrency: 6, writers: 3 });
  const whole = await s.acquire({ kind: "workspace" }, { signal: signal() });
  whole.widen();
  assert.equal(whole.touch("/w/a/x.ts"), true);
  const apart = s.acquire({ kind: "claim", roots: ["/w/b"] }, { signal: signal() });
  assert.equal(await settles(apart), false);
  whole.release();
  (await apart).release();
});
