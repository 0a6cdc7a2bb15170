import assert from "node:assert/strict";
import { renderToString } from "ink";
import { renderMarkdown } from "../markdown.ts";
import { makeStyles } from "../style.ts";
import type { LiveChild } from "../transcript.ts";
import { LiveTail } from "./live.tsx";

const plain = makeStyles(false);

function child(id: string, activity: string, tokens: number): LiveChild {
  return { id, activity, tokens, tools: [], calls: 0, failed: 0 };
}

Deno.test("the live tail of a long open list shows its newest lines and counts all above", () => {
  const text = Array.from({ length: 600 }, (_, i) => `${i + 1}. item ${i} 项目`).join("\n");
  const full = renderMarkdown(text, { width: 60, styles: plain }).split("\n");
  const out = renderToString(
    <LiveTail
      live={{ text, reasoning: "thinking about it", tools: [] }}
      queued={["next question"]}
      width={60}
      maxLines={10}
      now={0}
      styles={plain}
    />,
    { columns: 60 },
  );
  const lines = out.split("\n").filter((l) => l !== "");
  assert.ok(lines.length <= 10, `${lines.length} lines`);
  // Reasoning (2 lines + gap), the list, a gap and the queued line: 9 kept of all of them.
  const total = 3 + full.length + 2;
  assert.equal(lines[0], `… ${total - 8} lines above`);
  assert.deepEqual(lines.slice(1, 7), full.slice(-6));
  assert.match(lines.at(-1)!, /queued: next question/);
});

Deno.test("a running task card shows one closed card per subagent with its activity and tokens", () => {
  const call = { id: "t1", name: "task", arguments: '{"tasks":[]}' };
  const out = renderToString(
    <LiveTail
      live={{
        text: "",
        reasoning: "",
        tools: [{
          call,
          startedAt: 0,
          progress: "child 2: grep",
          children: [
            { ...child("aaaaaaaa-1111", "read_file ✓", 1230), cost: 0.0012, currency: "USD" },
            child("bbbbbbbb-2222", "grep", 40),
          ],
        }],
      }}
      queued={[]}
      width={80}
      maxLines={10}
      now={1000}
      styles={plain}
    />,
    { columns: 80 },
  );
  assert.match(out, /▸ aaaaaaaa · read_file ✓ · 1\.2k tok · \$0\.0012/);
  assert.match(out, /▸ bbbbbbbb · grep · 40 tok/);
  assert.doesNotMatch(out, /child 2: grep/, "the children's lines replace the progress line");
});

Deno.test("a card with more children than the tail has rows keeps its header on screen", () => {
  const call = { id: "f1", name: "fleet", arguments: '{"items":[]}' };
  const fleet = Array.from({ length: 64 }, (_, i) => ({
    id: `item-${i + 1}`,
    state: i === 30 ? "running" as const : "waiting" as const,
  }));
  const children = Array.from({ length: 12 }, (_, i) => child(`c${i}-session`, "grep", 10));
  for (const tool of [{ call, startedAt: 0, fleet }, { call, startedAt: 0, children }]) {
    for (const maxLines of [3, 4, 6, 9]) {
      const out = renderToString(
        <LiveTail
          live={{ text: "", reasoning: "", tools: [tool], open: { kind: "all" } }}
          queued={["later"]}
          width={60}
          maxLines={maxLines}
          now={0}
          styles={plain}
        />,
        { columns: 60 },
      );
      const lines = out.split("\n").filter((l) => l !== "");
      assert.ok(lines.length <= maxLines, `${lines.length} lines in ${maxLines}\n${out}`);
      if (maxLines >= 6) {
        assert.match(lines[0], /^◐ fleet/, out);
        assert.match(out, /… \d+ more/, out);
      }
      assert.match(lines.at(-1)!, /queued: later/);
    }
  }
});
