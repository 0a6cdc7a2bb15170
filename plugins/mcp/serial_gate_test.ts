import assert from "node:assert/strict";
import { SerialGate } from "./serial_gate.ts";

Deno.test("the serial gate runs calls one at a time, in order", async () => {
  const gate = new SerialGate();
  const log: string[] = [];
  let running = 0;
  const job = (name: string) =>
    gate.run(async () => {
      running++;
      assert.equal(running, 1);
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, 10));
      log.push(`end ${name}`);
      running--;
    });
  await Promise.all([job("a"), job("b"), job("c")]);
  assert.deepEqual(log, ["start a", "end a", "start b", "end b", "start c", "end c"]);
});

Deno.test("a queued call that is cancelled leaves the queue without running", async () => {
  const gate = new SerialGate();
  const release = await gate.acquire();
  const controller = new AbortController();
  let ran = false;
  const queued = gate.run(() => {
    ran = true;
    return Promise.resolve();
  }, controller.signal);
  assert.equal(gate.waiting, 1);
  controller.abort(new Error("cancelled"));
  await assert.rejects(queued, /cancelled/);
  assert.equal(gate.waiting, 0);
  release();
  await gate.run(() => Promise.resolve());
  assert.equal(ran, false);
});
