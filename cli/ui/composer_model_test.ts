import assert from "node:assert/strict";
import {
  backspace,
  completionAllowed,
  deleteForward,
  deleteWordBack,
  down,
  EMPTY_EDITOR,
  end,
  home,
  insert,
  killToLineEnd,
  killToLineStart,
  left,
  recall,
  replaceWordAtCursor,
  right,
  up,
  wordAtCursor,
} from "./composer_model.ts";
import { InputHistory } from "./history.ts";

Deno.test("the composer edits multi-line text around the cursor", () => {
  let s = insert(EMPTY_EDITOR, "hello\r\nworld");
  assert.deepEqual(s, { text: "hello\nworld", cursor: 11 });
  s = home(s);
  assert.equal(s.cursor, 6);
  s = up(s)!;
  assert.equal(s.cursor, 0);
  assert.equal(up(s), undefined);
  s = end(s);
  assert.equal(s.cursor, 5);
  s = down(s)!;
  assert.equal(s.cursor, 11);
  assert.equal(down(s), undefined);
  s = backspace(s);
  assert.deepEqual(s, { text: "hello\nworl", cursor: 10 });
  s = left(left(s));
  s = deleteForward(s);
  assert.deepEqual(s, { text: "hello\nwol", cursor: 8 });
  s = right(s);
  assert.equal(s.cursor, 9);
});

Deno.test("cursor moves and deletes never split a CJK character or an emoji", () => {
  let s = insert(EMPTY_EDITOR, "中文👍🏽x");
  s = left(s);
  assert.equal(s.cursor, "中文👍🏽".length);
  s = backspace(s);
  assert.deepEqual(s, { text: "中文x", cursor: 2 });
  s = left(s);
  s = deleteForward(s);
  assert.deepEqual(s, { text: "中x", cursor: 1 });
});

Deno.test("line kills and word deletion behave like a shell", () => {
  let s = insert(EMPTY_EDITOR, "first line\nsecond  word");
  s = deleteWordBack(s);
  assert.equal(s.text, "first line\nsecond  ");
  s = killToLineStart(s);
  assert.deepEqual(s, { text: "first line\n", cursor: 11 });
  s = killToLineStart(s);
  assert.deepEqual(s, { text: "first line", cursor: 10 });
  s = home(s);
  s = right(right(right(right(right(s)))));
  s = killToLineEnd(s);
  assert.deepEqual(s, { text: "first", cursor: 5 });
});

Deno.test("the word at the cursor can be replaced for completion", () => {
  const s = insert(EMPTY_EDITOR, "look at @src/ma");
  assert.deepEqual(wordAtCursor(s), { word: "@src/ma", start: 8 });
  assert.deepEqual(replaceWordAtCursor(s, "@src/main.ts "), {
    text: "look at @src/main.ts ",
    cursor: 21,
  });
});

Deno.test("history walks older and newer entries and keeps the draft", () => {
  const h = new InputHistory(["one", "two"]);
  assert.equal(h.next(), undefined);
  assert.equal(h.previous("draft"), "two");
  assert.equal(h.previous("two"), "one");
  assert.equal(h.previous("one"), undefined);
  assert.equal(h.next(), "two");
  assert.equal(h.next(), "draft");
  h.add("three");
  h.add("three");
  assert.deepEqual(h.entries, ["one", "two", "three"]);
});

Deno.test("history persists to a file and skips damaged lines", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-history-" });
  try {
    const file = `${dir}/history.jsonl`;
    await Deno.writeTextFile(file, '"old"\nnot json\n42\n');
    const h = await InputHistory.load(file);
    assert.deepEqual(h.entries, ["old"]);
    h.add("multi\nline");
    await h.flush();
    const again = await InputHistory.load(file);
    assert.deepEqual(again.entries, ["old", "multi\nline"]);
    assert.deepEqual((await InputHistory.load(`${dir}/missing`)).entries, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a recalled history entry opens no completion until it is edited", () => {
  const r = recall("/mcp\nsecond line");
  assert.deepEqual([r.text, r.cursor], ["/mcp\nsecond line", 16]);
  assert.equal(completionAllowed(r), false);
  // Moving the cursor is still browsing: the entry stays recalled.
  for (const moved of [left(r), right(r), home(r), end(r), up(r)!, down(up(r)!)!]) {
    assert.equal(completionAllowed(moved), false, JSON.stringify(moved));
  }
  // Any edit makes it the user's text again.
  for (
    const edited of [
      insert(r, "x"),
      backspace(r),
      deleteForward(home(r)),
      killToLineStart(r),
      killToLineEnd(home(r)),
      deleteWordBack(r),
      replaceWordAtCursor(r, "@a"),
    ]
  ) {
    assert.equal(completionAllowed(edited), true, JSON.stringify(edited));
  }
  assert.equal(completionAllowed(insert(EMPTY_EDITOR, "/m")), true);
});
