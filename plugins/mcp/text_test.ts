import assert from "node:assert/strict";
import { stripControl } from "./text.ts";

Deno.test("stripControl removes CSI, OSC, DCS and C1 sequences with their parameters", () => {
  assert.equal(stripControl("a\x1b[2Jb\x1b[31;1mc\x1b[0m"), "abc");
  assert.equal(stripControl("x\x1b]0;pwned\x07y"), "xy");
  assert.equal(stripControl("x\x1b]52;c;ZXZpbA==\x1b\\y"), "xy");
  assert.equal(stripControl("x\x1bPq#0;2;0;0;0\x1b\\y"), "xy");
  assert.equal(stripControl("x\x9b1my\x9d0;t\x9cz"), "xyz");
  assert.equal(stripControl("x\x1bcy\x1b7z"), "xyz");
});

Deno.test("stripControl keeps newlines, tabs and ordinary text, and drops other controls", () => {
  assert.equal(stripControl("line 1\n\tline 2 – ok ✓"), "line 1\n\tline 2 – ok ✓");
  assert.equal(stripControl("a\rb\bc\x00d\x7fe\x85f"), "abcdef");
  assert.equal(stripControl("unterminated \x1b]0;title"), "unterminated ");
  assert.equal(stripControl("trailing \x1b"), "trailing ");
});
