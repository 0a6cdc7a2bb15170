import assert from "node:assert/strict";
import { expandVars, referencedVars, VarExpansionError } from "./expand.ts";

const vars: Record<string, string> = { HOST: "example.com", EMPTY: "", PORT: "8080" };
const lookup = (name: string) => vars[name];

Deno.test("expandVars replaces ${VAR} and keeps other text", () => {
  assert.equal(expandVars("https://${HOST}:${PORT}/v1", lookup), "https://example.com:8080/v1");
  assert.equal(expandVars("no references", lookup), "no references");
});

Deno.test("expandVars uses the :- default when the variable is unset or empty", () => {
  assert.equal(expandVars("${MISSING:-fallback}", lookup), "fallback");
  assert.equal(expandVars("${EMPTY:-fallback}", lookup), "fallback");
  assert.equal(expandVars("${HOST:-fallback}", lookup), "example.com");
  assert.equal(expandVars("${MISSING:-}", lookup), "");
  assert.equal(expandVars("${MISSING:-http://${HOST}}", lookup), "http://example.com");
});

Deno.test("expandVars keeps $$ as a literal $ and a lone $ unchanged", () => {
  assert.equal(expandVars("cost $$5 and $${HOST}", lookup), "cost $5 and ${HOST}");
  assert.equal(expandVars("a $ b $x", lookup), "a $ b $x");
});

Deno.test("expandVars expands an empty variable without a default to nothing", () => {
  assert.equal(expandVars("[${EMPTY}]", lookup), "[]");
});

Deno.test("expandVars throws for an unset variable, naming it", () => {
  assert.throws(() => expandVars("Bearer ${TOKEN}", lookup), (err: unknown) => {
    assert.ok(err instanceof VarExpansionError);
    assert.equal(err.reason, "unset");
    assert.equal(err.variable, "TOKEN");
    return true;
  });
});

Deno.test("expandVars rejects malformed references", () => {
  for (const text of ["${HOST", "${}", "${1BAD}", "${A B}"]) {
    assert.throws(
      () => expandVars(text, lookup),
      (err: unknown) => err instanceof VarExpansionError && err.reason === "syntax",
      text,
    );
  }
});

Deno.test("referencedVars lists names, including inside defaults, but not escaped ones", () => {
  assert.deepEqual(referencedVars("${A} $${B} ${C:-${D}}"), ["A", "C", "D"]);
});
