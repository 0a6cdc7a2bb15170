import assert from "node:assert/strict";
import { resultSummary } from "./render_plain.ts";

Deno.test("a tool card says what a listing, a read and a search found", () => {
  const ls = resultSummary({ name: "ls" }, { content: ".git/\nsrc/\nREADME.md\ndeno.json" });
  assert.deepEqual(ls, ["4 entries: .git/  src/  README.md  deno.json"]);
  const read = resultSummary({ name: "read_file" }, {
    content: "     1\timport x\n     2\t\n     3\texport {}\n[showing lines 1-3 of 3]",
  });
  assert.deepEqual(read, ["read 3 lines"]);
  assert.deepEqual(resultSummary({ name: "grep" }, { content: "a.ts:1:x\nb.ts:2:x" }), [
    "2 matching lines",
  ]);
  assert.deepEqual(resultSummary({ name: "glob" }, { content: 'No files match "*.rs" in .' }), [
    'No files match "*.rs" in .',
  ]);
});

Deno.test("a command card shows the exit code and the last lines of output", () => {
  const out = resultSummary({ name: "bash" }, {
    content: "compiling\nstep 1\nstep 2\nFAILED 2 tests\nExit code: 1",
    isError: true,
    meta: { exitCode: 1 },
  });
  assert.deepEqual(out, ["exit 1 (last 3 of 4 lines)", "step 1", "step 2", "FAILED 2 tests"]);
  const quiet = resultSummary({ name: "bash" }, { content: "Exit code: 0", meta: { exitCode: 0 } });
  assert.deepEqual(quiet, ["exit 0, no output"]);
  // A command that never ran says why.
  const refused = resultSummary({ name: "bash" }, {
    content: "Not run: bash `rm x` needs approval.\nmore",
    isError: true,
  });
  assert.deepEqual(refused, ["Not run: bash `rm x` needs approval."]);
});
