import assert from "node:assert/strict";
import { ReasonixError } from "../../errors.ts";
import { ConfigError } from "./errors.ts";

Deno.test("ConfigError message is file:line:col, the problem, then a fix line", () => {
  const err = new ConfigError({
    file: "/p/reasonix.toml",
    line: 3,
    column: 5,
    problem: "agent.max_turns must be a whole number greater than 0, got 0",
    fix: "set agent.max_turns to a whole number greater than 0",
  });
  assert.ok(err instanceof ReasonixError);
  assert.equal(err.code, "config_invalid");
  assert.equal(
    err.message,
    "/p/reasonix.toml:3:5: agent.max_turns must be a whole number greater than 0, got 0\n" +
      "fix: set agent.max_turns to a whole number greater than 0",
  );
  assert.equal(err.line, 3);
  assert.equal(err.column, 5);
  assert.equal(err.fix, "set agent.max_turns to a whole number greater than 0");
});

Deno.test("ConfigError leaves out the parts of the location it does not know", () => {
  assert.equal(
    new ConfigError({ file: "f.toml", problem: "p", fix: "x" }).message,
    "f.toml: p\nfix: x",
  );
  assert.equal(new ConfigError({ file: "f.toml", line: 2, problem: "p" }).message, "f.toml:2: p");
  assert.equal(new ConfigError({ problem: "p", fix: "x" }).message, "p\nfix: x");
});

Deno.test("ConfigError lists the findings that may explain it after the fix", () => {
  const err = new ConfigError({
    file: "c.toml",
    line: 1,
    problem: 'unknown model "mock"',
    fix: "set default_model",
    notes: ["c.toml:3: unknown table [[provider]] is ignored; did you mean [[providers]]?"],
  });
  assert.equal(
    err.message,
    'c.toml:1: unknown model "mock"\nfix: set default_model\n' +
      "note: c.toml:3: unknown table [[provider]] is ignored; did you mean [[providers]]?",
  );
  assert.deepEqual(new ConfigError({ problem: "p" }).notes, []);
});
