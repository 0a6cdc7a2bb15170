import assert from "node:assert/strict";
import type { Message } from "../../providers/types.ts";
import type { ToolContext } from "../../tools/types.ts";
import { PAGE_MAX_BYTES, toolResultCapability } from "./tool_results.ts";

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

Deno.test("session:tool_result never ends a page inside a surrogate pair", async () => {
  const raw = "ab😀cd";
  const messages: Message[] = [
    { role: "tool", toolCallId: "c1", name: "x", content: "a…d", rawContent: raw },
  ];
  const capability = toolResultCapability(() => messages);
  const first = await capability.invoke({ call_id: "c1", limit: 3 }, ctx);
  assert.equal(
    first.content,
    `[characters 0-2 of 6]\nab\n[... 4 more characters; call again with offset=2]`,
  );
  const next = await capability.invoke({ call_id: "c1", offset: 2, limit: 3 }, ctx);
  assert.match(next.content, /^\[characters 2-5 of 6\]\n😀c\n/);
});

Deno.test("session:tool_result pages of wide characters fit the 32 KB result bound", async () => {
  const raw = "中".repeat(50_000); // 3 bytes each: a 20,000-character page would be 60 KB
  const messages: Message[] = [
    { role: "tool", toolCallId: "c1", name: "x", content: "中…中", rawContent: raw },
  ];
  const capability = toolResultCapability(() => messages);
  const first = await capability.invoke({ call_id: "c1" }, ctx);
  const end = Math.floor(PAGE_MAX_BYTES / 3);
  assert.ok(first.content.startsWith(`[characters 0-${end} of 50000]\n中中`));
  assert.ok(first.content.endsWith(`call again with offset=${end}]`));
  assert.ok(new TextEncoder().encode(first.content).length <= 32 * 1024);
});
