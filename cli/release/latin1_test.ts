import assert from "node:assert/strict";
import { latin1Source } from "./latin1.ts";

/** Runs module text and returns what it exports as `out`. */
async function evaluate(text: string): Promise<unknown> {
  const url = `data:text/javascript;base64,${
    btoa(String.fromCharCode(...new TextEncoder().encode(text)))
  }`;
  return (await import(url)).out;
}

Deno.test("wide characters leave comments, strings, templates and regexps, meaning kept", async () => {
  const source = [
    "// a comment with … and — and ✓",
    "/* block → comment */",
    'const s = "done ✓ — ok";',
    "const t = `${s} … ${1 + 1} ✗`;",
    "const r = /[–—]x/u.test('—x');",
    "const o = { k: '☃' };",
    "export const out = [s, t, r, o.k, 'é stays'];",
  ].join("\n");
  const rewritten = latin1Source(source);
  assert.doesNotMatch(rewritten, /[\u0100-\uffff]/, rewritten);
  assert.match(rewritten, /\/\/ a comment with \.\.\. and -- and \?/);
  assert.deepEqual(await evaluate(rewritten), await evaluate(source));
});

Deno.test("tagged templates keep their raw text", async () => {
  const source = "const tag = (s) => s.raw[0];\nexport const out = [tag`a…b`, String.raw`✓${1}`];";
  const rewritten = latin1Source(source);
  assert.match(rewritten, /tag`a…b`/);
  assert.match(rewritten, /String\.raw`✓/);
  assert.deepEqual(await evaluate(rewritten), ["a…b", "✓1"]);
});

Deno.test("Latin-1 text is returned as it is", () => {
  const text = "export const out = 'café';";
  assert.equal(latin1Source(text), text);
});
