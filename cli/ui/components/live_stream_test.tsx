import assert from "node:assert/strict";
import { renderToString } from "ink";
import { renderMarkdown } from "../markdown.ts";
import { makeStyles } from "../style.ts";
import { LiveTail } from "./live.tsx";

const plain = makeStyles(false);

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

Deno.test("a running task card shows one line per subagent with its activity and tokens", () => {
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
            { id: "aaaaaaaa-1111", activity: "read_file ✓", tokens: 1230 },
            { id: "bbbbbbbb-2222", activity: "grep", tokens: 40 },
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
  assert.match(out, /↳ aaaaaaaa · read_file ✓ · 1\.2k tok/);
  assert.match(out, /↳ bbbbbbbb · grep · 40 tok/);
  assert.doesNotMatch(out, /child 2: grep/, "the children's lines replace the progress line");
});
