import assert from "node:assert/strict";
import stringWidth from "string-width";
import { renderMarkdown, splitFinishedBlocks } from "./markdown.ts";
import { makeStyles, stripAnsi } from "./style.ts";

const plain = makeStyles(false);
const color = makeStyles(true);

Deno.test("markdown renders headings, emphasis, lists, quotes and links as terminal text", () => {
  const out = renderMarkdown(
    [
      "# Title",
      "",
      "Some **bold**, *em*, `code` and a [link](https://x.dev) &amp; more.",
      "",
      "- one",
      "- two",
      "  - nested",
      "- [x] done",
      "",
      "3. three",
      "4. four",
      "",
      "> quoted",
      "",
      "---",
    ].join("\n"),
    { width: 80, styles: plain },
  );
  assert.equal(
    out,
    [
      "Title",
      "",
      "Some bold, em, code and a link (https://x.dev) & more.",
      "",
      "• one",
      "• two",
      "  • nested",
      "• [x] done",
      "",
      "3. three",
      "4. four",
      "",
      "│ quoted",
      "",
      "─".repeat(60),
    ].join("\n"),
  );
});

Deno.test("code blocks are highlighted by language and indented", () => {
  const src = "```ts\nconst x: number = 1; // one\n```";
  assert.equal(
    renderMarkdown(src, { width: 80, styles: plain }),
    "  ts\n  const x: number = 1; // one",
  );
  const painted = renderMarkdown(src, { width: 80, styles: color });
  assert.ok(painted.includes("\x1b[35mconst\x1b[39m"), painted);
  assert.ok(painted.includes("\x1b[90m// one\x1b[39m"), painted);
  assert.equal(stripAnsi(painted), "  ts\n  const x: number = 1; // one");
  // An unknown language is left plain rather than guessed.
  assert.equal(
    renderMarkdown("```nosuchlang\na b\n```", { width: 80, styles: color }),
    "\x1b[2m  nosuchlang\x1b[22m\n  a b",
  );
});

Deno.test("every line fits the width, CJK counting two columns", () => {
  const text = "这是一个很长的中文段落，用来测试在狭窄终端中的换行是否正确。".repeat(3) +
    " and some English words mixed in with `inline code`.";
  for (const width of [10, 17, 24, 40]) {
    const out = renderMarkdown(`${text}\n\n- ${text}\n\n> ${text}`, { width, styles: color });
    for (const line of out.split("\n")) {
      assert.ok(stringWidth(line) <= width, `"${stripAnsi(line)}" is wider than ${width}`);
    }
    // Nothing is lost by wrapping.
    assert.ok(stripAnsi(out).replace(/[\s│•]/g, "").includes("这是一个很长的中文段落"));
  }
});

Deno.test("tables render as a grid when they fit and as records when they do not", () => {
  const src = "| Name | 数量 |\n|:-----|-----:|\n| apple | 3 |\n| 香蕉 | 12 |";
  assert.equal(
    renderMarkdown(src, { width: 40, styles: plain }),
    ["Name  │ 数量", "──────┼─────", "apple │    3", "香蕉  │   12"].join("\n"),
  );
  assert.equal(
    renderMarkdown(src, { width: 10, styles: plain }),
    ["Name:", "apple", "数量: 3", "", "Name: 香蕉", "数量: 12"].join("\n"),
  );
});

Deno.test("splitFinishedBlocks commits only blocks followed by another block", () => {
  assert.deepEqual(splitFinishedBlocks("Hello wor"), { done: "", rest: "Hello wor" });
  assert.deepEqual(splitFinishedBlocks("Para one.\n\nPara t"), {
    done: "Para one.\n\n",
    rest: "Para t",
  });
  // An open code fence is one growing block: nothing inside it is committed early.
  const open = "Intro\n\n```ts\nline1\n\nline2\n";
  assert.deepEqual(splitFinishedBlocks(open), {
    done: "Intro\n\n",
    rest: "```ts\nline1\n\nline2\n",
  });
  const closed = "```ts\nx\n```\nAfter";
  assert.deepEqual(splitFinishedBlocks(closed), { done: "```ts\nx\n```\n", rest: "After" });
  // Trailing blank lines alone do not finish the last block.
  assert.deepEqual(splitFinishedBlocks("Only\n\n"), { done: "", rest: "Only\n\n" });
});

Deno.test("committed chunks render the same as the whole message", () => {
  const message = "# Plan\n\nFirst do this.\n\n1. step\n2. step\n\n```js\nlet a = 1;\n```\n\nDone.";
  let rest = "";
  const parts: string[] = [];
  for (const ch of message) {
    rest += ch;
    const { done, rest: r } = splitFinishedBlocks(rest);
    if (done) parts.push(done);
    rest = r;
  }
  parts.push(rest);
  assert.equal(parts.join(""), message);
  const whole = renderMarkdown(message, { width: 60, styles: plain });
  const pieces = parts.map((p) => renderMarkdown(p, { width: 60, styles: plain })).filter((p) =>
    p !== ""
  );
  assert.equal(pieces.join("\n\n"), whole);
});
