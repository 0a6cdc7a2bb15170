import assert from "node:assert/strict";
import type { Message } from "../../providers/types.ts";
import type { ToolContext } from "../../tools/types.ts";
import { HistoryIndex, historyTool } from "./history.ts";

Deno.test("history finds messages of this session as it grows and of archived sessions", async () => {
  const live: Message[] = [{
    role: "user",
    content: "<environment>\nx\n</environment>\n\nfix the tokenizer",
  }];
  let archivesLoaded = 0;
  const index = new HistoryIndex({
    sessionId: "live",
    messages: () => live,
    archives: () => {
      archivesLoaded++;
      return Promise.resolve([{
        id: "old-session-1",
        messages: [{ role: "assistant", content: "the tokenizer used regex" }],
      }]);
    },
  });
  live.push({
    role: "tool",
    toolCallId: "c",
    name: "grep",
    content: "src/tokenizer.ts:12: export function tokenize",
  });
  const hits = await index.search("tokenizer");
  assert.equal(hits.length, 3);
  assert.ok(hits.some((h) => !h.current && h.sessionId === "old-session-1"));
  assert.equal(hits.find((h) => h.role === "user")?.snippet, "fix the tokenizer");
  live.push({ role: "assistant", content: "the tokenizer is fixed" });
  assert.equal((await index.search("tokenizer", { scope: "session" })).length, 3);
  assert.equal(archivesLoaded, 1);
});

Deno.test("the history tool reports hits with their location", async () => {
  const index = new HistoryIndex({
    sessionId: "s",
    messages: () => [{ role: "assistant", content: "we chose the 上下文压缩 plan" }],
    archives: () => Promise.resolve([]),
  });
  const tool = historyTool(index);
  const result = await tool.execute({ query: "压缩" }, {} as ToolContext);
  assert.match(result.content, /^\[this session #0 assistant\] we chose the 上下文压缩 plan$/);
  const none = await tool.execute({ query: "zzz" }, {} as ToolContext);
  assert.equal(none.content, 'No history matches "zzz".');
});
