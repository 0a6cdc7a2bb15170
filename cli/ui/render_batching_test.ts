import assert from "node:assert/strict";
import { startUiSession } from "../../tests/support/ui_session.ts";

const ROUNDS = 30;

Deno.test("a fast turn's agent events render once per frame, while keys show at once", async () => {
  const s = await startUiSession({
    frameMs: 16,
    files: { "notes.txt": "one\n" },
    script: (_req, i) =>
      i < ROUNDS
        ? { toolCalls: [{ name: "read_file", arguments: '{"path":"notes.txt"}' }] }
        : { text: "Done." },
  });
  let renders = 0;
  const unsubscribe = s.controller.subscribe(() => renders++);
  try {
    s.type("x");
    assert.equal(renders, 1, "a key is shown at once");
    assert.equal(s.controller.getSnapshot().editor.text, "x");
    s.type("y");
    s.press({ return: true });
    renders = 0;
    const started = performance.now();
    await s.controller.idle();
    const frames = Math.ceil((performance.now() - started) / 16);
    assert.deepEqual(s.lines().at(-1), "Done.");
    // Each round brings at least a request, a tool start and a tool end: 90+ events.
    assert.ok(renders <= frames + 4, `${renders} renders in ${frames} frames`);
  } finally {
    unsubscribe();
    await s.close();
  }
});
