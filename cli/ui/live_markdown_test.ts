import assert from "node:assert/strict";
import { BlockSplitter, LiveMarkdown } from "./live_markdown.ts";
import { renderMarkdown, splitFinishedBlocks } from "./markdown.ts";
import { makeStyles } from "./style.ts";

const plain = makeStyles(false);
const color = makeStyles(true);

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Documents whose open block is long, in the shapes the shortcuts handle and a few they don't. */
const DOCS: Record<string, string> = {
  bullets:
    range(260).map((i) =>
      i % 37 === 5
        ? `- item ${i} with **bold** and \`code\`\n  - nested ${i}\n  - nested 二 ${i}`
        : i % 53 === 7
        ? `- item ${i} with a fence\n\n  \`\`\`ts\n  const x = ${i};\n  \`\`\``
        : i % 41 === 3
        ? `- [x] task ${i} 中文字符混排的列表项，足够长以便在窄终端里换行显示出来`
        : `- item ${i} 列表`
    ).join("\n") + "\n",
  ordered: range(230).map((i) => `${i + 1}. step ${i}: do the thing`).join("\n") + "\n",
  "ordered from 1 each": range(120).map((i) => `1) again ${i}`).join("\n") + "\n",
  "loose late": range(200).map((i) => `* entry ${i}${i === 170 ? "\n" : ""}`).join("\n") + "\n",
  "loose early": range(200).map((i) => `- entry ${i}${i === 3 ? "\n" : ""}`).join("\n") + "\n",
  code: "```ts\n" +
    range(420).map((i) => i % 9 === 0 ? `// 注释 ${i}` : `const v${i} = f(${i}, "s${i}");`)
      .join("\n") +
    "\n",
  "code closed then more": "```\n" + range(300).map((i) => `line ${i}`).join("\n") +
    "\n```\n\nAfter the code.\n",
  "code closed then a long paragraph": "```sh\n" + range(100).map((i) => `echo ${i}`).join("\n") +
    "\n```\n" + range(150).map((i) => `after ${i}`).join("\n") + "\n",
  "code no language": "~~~\n" + range(300).map((i) => `  indented ${i}`).join("\n") + "\n\n\n",
  paragraph:
    range(400).map((i) =>
      i % 23 === 0
        ? `word ${i} with **bold ${i}** and _em_ snake_case`
        : i % 31 === 0
        ? `中文段落第${i}行，宽字符需要按两列计算宽度并在终端边缘正确换行才行。`
        : `w${i} plain text`
    ).join("\n") + "\n",
  "paragraph with open emphasis": "start *open\n" + range(300).map((i) => `line ${i}`).join("\n") +
    " close*\n",
  "paragraph becomes heading": range(250).map((i) => `line ${i}`).join("\n") + "\n====\n",
  "paragraph then list": range(250).map((i) => `line ${i}`).join("\n") + "\n- a list\n- more\n",
  // The header line of the table ends the cached chunk of the paragraph before it.
  "paragraph then table": range(287).map((i) => `word number ${i}`).join("\n") +
    "\na | b\n--|--\n" +
    range(80).map((i) => `| c${i} | d |`).join("\n") + "\n",
  "tasks loose late":
    range(150).map((i) =>
      `- [${i % 3 ? " " : "x"}] task ${i} with words enough to wrap${i === 120 ? "\n" : ""}`
    ).join("\n") + "\n",
  table: "| a | b |\n|---|:-:|\n" + range(200).map((i) => `| ${i} | 值 ${i} |`).join("\n") + "\n",
  quote: range(200).map((i) => `> quoted ${i}`).join("\n") + "\n",
};

function fullLines(text: string, width: number, styles = plain): string[] {
  return renderMarkdown(text, { width, styles }).split("\n");
}

/** Split points: irregular steps, as the fake model's pieces are. */
function splitPoints(text: string): number[] {
  const points: number[] = [];
  const steps = [3, 7, 2, 11, 5, 1, 8, 40, 13];
  for (let at = 0, k = 0; at < text.length; k++) {
    at = Math.min(text.length, at + steps[k % steps.length]);
    points.push(at);
  }
  return points;
}

for (const [name, doc] of Object.entries(DOCS)) {
  Deno.test(`the live tail of a growing ${name} equals the full rendering at every split`, () => {
    for (const width of [80, 23]) {
      const live = new LiveMarkdown();
      const points = splitPoints(doc);
      points.forEach((at, n) => {
        const text = doc.slice(0, at);
        if (!text.trim()) return;
        // The full rendering is the expensive reference: check it at a sample of the points.
        const keep = 12;
        const got = live.render(text, { width, styles: plain, keep });
        if (n % 7 !== 0 && at !== doc.length) return;
        const want = fullLines(text, width);
        assert.equal(got.hidden + got.lines.length, want.length, `${name} @${at} w${width}: count`);
        assert.deepEqual(
          got.lines.slice(-keep),
          want.slice(-keep),
          `${name} @${at} w${width}`,
        );
      });
    }
  });
}

Deno.test("the live tail with colour equals the full rendering for lists and paragraphs", () => {
  for (const name of ["bullets", "ordered", "paragraph", "loose late"]) {
    const doc = DOCS[name];
    const live = new LiveMarkdown();
    for (const at of splitPoints(doc)) {
      const text = doc.slice(0, at);
      const got = live.render(text, { width: 60, styles: color, keep: 400 });
      if (at % 5 !== 0 && at !== doc.length) continue;
      assert.deepEqual([...got.lines], fullLines(text, 60, color).slice(-400), `${name} @${at}`);
    }
  }
});

const LONG: Record<string, string> = {
  list: range(2000).map((i) => `- item ${i}`).join("\n") + "\n",
  code: "```ts\n" + range(2000).map((i) => `let v${i} = ${i};`).join("\n") + "\n",
  paragraph: range(2000).map((i) => `word ${i}`).join("\n") + "\n",
};

for (const [name, doc] of Object.entries(LONG)) {
  Deno.test(`a long open ${name} is rendered from its cached part, not re-rendered whole`, () => {
    const live = new LiveMarkdown();
    const points = splitPoints(doc);
    let calls = 0;
    let firstHalf = 0;
    for (const at of points) {
      const window = live.render(doc.slice(0, at), { width: 80, styles: plain, keep: 30 });
      assert.ok(window.lines.length <= Math.max(30, at < 2048 ? Infinity : 30));
      if (at <= doc.length / 2) firstHalf = live.workChars;
      else calls++;
    }
    const last = live.render(doc, { width: 80, styles: plain, keep: 30 });
    assert.deepEqual(last.lines, fullLines(doc, 80).slice(-30));
    assert.equal(last.hidden + 30, fullLines(doc, 80).length);
    // Each frame in the second half costs a bounded window of items, far below the ~11,000
    // characters of the open list at that point.
    const perCall = (live.workChars - firstHalf) / calls;
    assert.ok(perCall < 1500, `${perCall} characters per frame`);
  });
}

for (const [name, doc] of Object.entries(DOCS)) {
  Deno.test(`the block splitter commits ${name} as the full split does, lexing only new text`, () => {
    const splitter = new BlockSplitter();
    const done: string[] = [];
    let open = "";
    for (const [i, at] of splitPoints(doc).entries()) {
      const delta = doc.slice(i === 0 ? 0 : splitPoints(doc)[i - 1], at);
      const out = splitter.push(delta, open);
      if (out.done) done.push(out.done);
      open = out.rest;
      assert.equal(done.join("") + open, doc.slice(0, at));
    }
    // Committed pieces render as the whole text does, block for block.
    const pieces = [...done, open].filter((p) => p.trim());
    assert.equal(
      pieces.map((p) => renderMarkdown(p, { width: 70, styles: plain })).join("\n\n"),
      renderMarkdown(doc, { width: 70, styles: plain }),
    );
    // It commits at least what the full split commits of the whole text.
    assert.ok(done.join("").length >= splitFinishedBlocks(doc).done.length, name);
  });
}

Deno.test("the block splitter commits a finished long list as soon as the next block starts", () => {
  const list = range(1500).map((i) => `- item ${i}`).join("\n") + "\n";
  const splitter = new BlockSplitter();
  let open = "";
  const done: string[] = [];
  let firstHalf = 0;
  let secondHalf = 0;
  for (const piece of list.match(/[\s\S]{1,6}/g)!) {
    const out = splitter.push(piece, open);
    open = out.rest;
    if (out.done) done.push(out.done);
    if (open.length <= list.length / 2) firstHalf = splitter.workChars;
    else secondHalf += piece.length;
  }
  // The second half is lexed as new text plus the line before it, not as the whole list.
  assert.ok(splitter.workChars - firstHalf < 8 * secondHalf, `lexed ${splitter.workChars}`);
  for (const piece of ["\nNext para", "graph."]) {
    const out = splitter.push(piece, open);
    open = out.rest;
    if (out.done) done.push(out.done);
  }
  assert.deepEqual(done, [list + "\n"]);
  assert.equal(open, "Next paragraph.");
});

Deno.test("a long open fence is never relexed while it stays open", () => {
  const code = "```py\n" + range(3000).map((i) => `x = ${i}  # - item ${i}`).join("\n");
  const splitter = new BlockSplitter();
  let open = "";
  let firstHalf = 0;
  for (const piece of code.match(/[\s\S]{1,5}/g)!) {
    const out = splitter.push(piece, open);
    assert.equal(out.done, "");
    open = out.rest;
    if (open.length <= code.length / 2) firstHalf = splitter.workChars;
  }
  // The second half costs nothing but scanning its own lines for a closing fence.
  assert.equal(splitter.workChars, firstHalf);
  assert.equal(open, code);
  const closed = splitter.push("\n```\n\nafter", open);
  assert.equal(closed.done, code + "\n```\n\n");
  assert.equal(closed.rest, "after");
});
