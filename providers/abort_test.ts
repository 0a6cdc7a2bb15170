import assert from "node:assert/strict";
import { linkedSignal } from "./abort.ts";

Deno.test("a linked signal aborts with its parent's reason", () => {
  const parent = new AbortController();
  using call = linkedSignal(parent.signal, { timeoutMs: 60_000 });
  const reason = new Error("stop");
  parent.abort(reason);
  assert.equal(call.signal.reason, reason);
  assert.equal(call.timedOut, false);
});

Deno.test("a linked signal times out with the given reason and says so", async () => {
  const parent = new AbortController();
  using call = linkedSignal(parent.signal, {
    timeoutMs: 20,
    timeoutReason: () => new RangeError("too slow"),
  });
  await new Promise((resolve) => call.signal.addEventListener("abort", resolve));
  assert.ok(call.timedOut);
  assert.ok(call.signal.reason instanceof RangeError);
  // Without a reason given, a TimeoutError as AbortSignal.timeout gives.
  using plain = linkedSignal(parent.signal, { timeoutMs: 1 });
  await new Promise((resolve) => plain.signal.addEventListener("abort", resolve));
  assert.equal((plain.signal.reason as DOMException).name, "TimeoutError");
});

Deno.test("a disposed linked signal lets go of its parent and its timer", async () => {
  const parent = new AbortController();
  const call = linkedSignal(parent.signal, { timeoutMs: 30 });
  call[Symbol.dispose]();
  parent.abort(new Error("later"));
  // The test's timer sanitizer fails the test if the 30 ms timer were still pending.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(call.signal.aborted, false);
  assert.equal(call.timedOut, false);
});

Deno.test("a linked signal of an aborted parent starts aborted, with no timer", () => {
  const parent = new AbortController();
  parent.abort("gone");
  using call = linkedSignal(parent.signal, { timeoutMs: 60_000 });
  assert.equal(call.signal.reason, "gone");
});

Deno.test("no timeout is set for zero, negative or infinite durations", async () => {
  const parent = new AbortController();
  for (const timeoutMs of [0, -1, Infinity, NaN]) {
    using call = linkedSignal(parent.signal, { timeoutMs });
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(call.signal.aborted, false, String(timeoutMs));
  }
});
