import assert from "node:assert/strict";
import { expandTemplate, expandTemplateParts, splitArguments, usesArguments } from "./template.ts";

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

Deno.test("expandTemplateParts tells the template's own text from the typed arguments", () => {
  const parts = (template: string, args: string) => {
    const { text, fromTemplate } = expandTemplateParts(template, args);
    assert.equal(text, expandTemplate(template, args));
    return fromTemplate.map((s) => text.slice(s.start, s.end));
  };
  assert.deepEqual(parts("Review @$1 for $2, $$5 each", "a.ts speed"), [
    "Review @",
    " for ",
    ", $5 each",
  ]);
  assert.deepEqual(parts("$ARGUMENTS", "@x"), []);
  assert.deepEqual(parts("Check @/etc/x  \n", "@mine"), ["Check @/etc/x\n\nARGUMENTS: "]);
  assert.deepEqual(parts("Just this", ""), ["Just this"]);
});
