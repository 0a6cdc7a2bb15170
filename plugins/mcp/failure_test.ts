import assert from "node:assert/strict";
import { attachDetail, classifyError, stdioFailureDetail } from "./failure.ts";

Deno.test("a stdio failure detail quotes the last stderr lines with env values blanked, or the signal", () => {
  const stderr = "one\ntwo\n\nkey=abcdef and abc\nthree " + "x".repeat(300) + "\n";
  const detail = stdioFailureDetail(new Error("connection closed"), {
    command: "srv",
    exit: { code: 1, signal: null },
    stderr,
    // The longer value first, so "abcdef" is not left as "<redacted>def".
    secrets: ["abc", "abcdef", "1"],
  });
  assert.equal(
    detail,
    `exited with status 1; stderr: two | key=<redacted> and <redacted> | three ${"x".repeat(194)}…`,
  );
  assert.equal(
    stdioFailureDetail(new Error("x"), { command: "srv", exit: { code: null, signal: "SIGKILL" } }),
    "was killed by SIGKILL; no stderr output",
  );
  // Still running: nothing is known beyond the class.
  assert.equal(
    stdioFailureDetail(new Error("x"), { command: "srv", exit: { code: null, signal: null } }),
    undefined,
  );
});

Deno.test("an attached detail travels with the error's class", () => {
  const error = Object.assign(new Error("spawn /x ENOENT"), { code: "ENOENT", path: "/x" });
  attachDetail(error, stdioFailureDetail(error, { command: "/x" }));
  assert.deepEqual(classifyError(error), {
    errorClass: "spawn",
    detail: "cannot run /x: ENOENT (no such file or directory)",
  });
  assert.deepEqual(classifyError(new Error("spawn /y ENOENT")), { errorClass: "spawn" });
});
