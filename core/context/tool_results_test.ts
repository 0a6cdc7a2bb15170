import assert from "node:assert/strict";
import type { Message } from "../../providers/types.ts";
import type { ToolContext } from "../../tools/types.ts";
import { toolResultCapability } from "./tool_results.ts";

const ctx = {} as ToolContext;

Deno.test("session:tool_result pages through the full local text of a shortened result", async () => {
  const raw = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n");
  const messages: Message[] = [
    { role: "tool", toolCallId: "c1", name: "bash", content: "head … tail", rawContent: raw },
  ];
  const capability = toolResultCapability(() => messages);
  assert.equal(capability.readOnly, true);
  const first = await capability.invoke({ call_id: "c1", limit: 100 }, ctx);
  assert.ok(first.content.startsWith(`[characters 0-100 of ${raw.length}]\nline 0\nline 1`));
  assert.match(first.content, /call again with offset=100\]$/);
  const last = await capability.invoke({ call_id: "c1", offset: raw.length - 9 }, ctx);
  assert.equal(
    last.content,
    `[characters ${raw.length - 9}-${raw.length} of ${raw.length}]\nline 2999`,
  );
});

Deno.test("session:tool_result reports unknown calls and offsets past the end", async () => {
  const messages: Message[] = [{ role: "tool", toolCallId: "c1", name: "ls", content: "a" }];
  const capability = toolResultCapability(() => messages);
  assert.equal((await capability.invoke({ call_id: "nope" }, ctx)).isError, true);
  assert.equal((await capability.invoke({ call_id: "c1", offset: 5 }, ctx)).isError, true);
  assert.equal(
    (await capability.invoke({ call_id: "c1" }, ctx)).content,
    "[characters 0-1 of 1]\na",
  );
});
