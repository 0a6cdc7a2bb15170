import assert from "node:assert/strict";
import type { Message } from "../../providers/types.ts";
import { MISSING_RESULT, sanitizeHistory } from "./sanitize.ts";

const call = (id: string): Message => ({
  role: "assistant",
  content: "",
  toolCalls: [{ id, name: "ls", arguments: "{}" }],
});
const result = (id: string): Message => ({
  role: "tool",
  toolCallId: id,
  name: "ls",
  content: "ok",
});

Deno.test("a well-formed history is returned as the same array", () => {
  const history: Message[] = [{ role: "user", content: "hi" }, call("a"), result("a")];
  assert.equal(sanitizeHistory(history), history);
});

Deno.test("an unanswered call gets a stable placeholder result", () => {
  const history: Message[] = [{ role: "user", content: "hi" }, call("a"), {
    role: "user",
    content: "next",
  }];
  const once = sanitizeHistory(history);
  assert.deepEqual(once.map((m) => m.role), ["user", "assistant", "tool", "user"]);
  assert.equal(once[2].content, MISSING_RESULT);
  assert.equal(once[2].toolCallId, "a");
  assert.equal(
    sanitizeHistory(history)[2],
    once[2],
    "the placeholder is the same object every time",
  );
});

Deno.test("orphan results and results of another call are dropped", () => {
  const history: Message[] = [
    result("x"),
    { role: "user", content: "hi" },
    call("a"),
    result("b"),
    result("a"),
  ];
  assert.deepEqual(sanitizeHistory(history).map((m) => [m.role, m.toolCallId]), [
    ["user", undefined],
    ["assistant", undefined],
    ["tool", "a"],
  ]);
});

/** The same messages as new objects: a history the memo has never seen. */
function fresh(history: readonly Message[]): Message[] {
  return history.map((m) => ({ ...m }));
}

Deno.test("a growing history is checked from where the last call left off, with the same result", () => {
  const history: Message[] = [{ role: "user", content: "hi" }, call("a"), result("a")];
  const steps: Message[][] = [
    [call("b")], // an unanswered call at the end…
    [result("b"), { role: "user", content: "next" }], // …answered next time
    [result("x"), call("c")], // an orphan, and a call without its result
    [{ role: "user", content: "more" }, call("d"), result("d")],
  ];
  for (const step of steps) {
    history.push(...step);
    const incremental = sanitizeHistory(history);
    const whole = sanitizeHistory(fresh(history));
    assert.deepEqual(
      incremental.map((m) => [m.role, m.toolCallId ?? "", m.content]),
      whole.map((m) => [m.role, m.toolCallId ?? "", m.content]),
    );
  }
  // A rewritten prefix (the same first message, another second one) is checked again.
  const rewritten = [...history];
  rewritten[2] = { role: "user", content: "rewritten" };
  assert.deepEqual(
    sanitizeHistory(rewritten).map((m) => [m.role, m.content]),
    sanitizeHistory(fresh(rewritten)).map((m) => [m.role, m.content]),
  );
});
