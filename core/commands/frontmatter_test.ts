import assert from "node:assert/strict";
import { FrontmatterError, parseFrontmatter } from "./frontmatter.ts";

Deno.test("parseFrontmatter reads key: value lines and strips quotes", () => {
  const doc = parseFrontmatter(
    `\uFEFF---\r\ndescription: "Review a file: carefully"\r\nargument-hint: '<file> [focus]'\r\n# comment\r\n\r\nModel: fast\r\n---\r\n\r\nBody $1\r\n`,
  );
  assert.deepEqual(doc.attributes, {
    description: "Review a file: carefully",
    "argument-hint": "<file> [focus]",
    model: "fast",
  });
  assert.equal(doc.body, "Body $1\n");
});

Deno.test("a file without a leading --- has no frontmatter", () => {
  assert.deepEqual(parseFrontmatter("Just a prompt\n---\nmore"), {
    attributes: {},
    body: "Just a prompt\n---\nmore",
  });
});

Deno.test("parseFrontmatter rejects an unclosed block and a line that is not key: value", () => {
  assert.throws(() => parseFrontmatter("---\ndescription: x\nBody"), FrontmatterError);
  assert.throws(
    () => parseFrontmatter("---\n- a list item\n---\nBody"),
    (e: unknown) => e instanceof FrontmatterError && /line 2/.test(e.message),
  );
});
