import assert from "node:assert/strict";
import { expandTemplate, splitArguments, usesArguments } from "./template.ts";

Deno.test("splitArguments splits on whitespace and keeps quoted groups", () => {
  assert.deepEqual(splitArguments(`  a  "b c" 'd "e"' f\\ g "h\\"i" `), [
    "a",
    "b c",
    'd "e"',
    "f g",
    'h"i',
  ]);
  assert.deepEqual(splitArguments(""), []);
  assert.deepEqual(splitArguments(`""`), [""]);
});

Deno.test("expandTemplate fills $ARGUMENTS with the whole argument string", () => {
  assert.equal(
    expandTemplate("Review $ARGUMENTS carefully.", "  src/a.ts  and tests "),
    "Review src/a.ts  and tests carefully.",
  );
});

Deno.test("expandTemplate fills $1…$N positionally and leaves missing ones empty", () => {
  assert.equal(
    expandTemplate("from $1 to $2 via [$3] ($10)", `"New York" Boston`),
    "from New York to Boston via [] ()",
  );
  const ten = Array.from({ length: 10 }, (_, i) => `w${i + 1}`).join(" ");
  assert.equal(expandTemplate("$10/$1", ten), "w10/w1");
});

Deno.test("expandTemplate turns $$ into a literal dollar and keeps other dollars", () => {
  assert.equal(
    expandTemplate("Costs $$5; keep $HOME and $x; $$1 is not an argument", "a"),
    "Costs $5; keep $HOME and $x; $1 is not an argument\n\nARGUMENTS: a",
  );
  assert.equal(expandTemplate("$$ARGUMENTS", "z"), "$ARGUMENTS\n\nARGUMENTS: z");
});

Deno.test("expandTemplate appends arguments when the template has no placeholder", () => {
  assert.equal(
    expandTemplate("Summarize the repo.\n", "briefly"),
    "Summarize the repo.\n\nARGUMENTS: briefly",
  );
  assert.equal(expandTemplate("Summarize the repo.", "  "), "Summarize the repo.");
  assert.equal(usesArguments("only $$ here"), false);
  assert.equal(usesArguments("use $2"), true);
});
