import assert from "node:assert/strict";
import { fakeToolCall } from "./tool_call.ts";

Deno.test("a fake tool call carries its arguments as JSON, and its id only when given", () => {
  assert.deepEqual(fakeToolCall("bash", { command: "ls" }), {
    name: "bash",
    arguments: '{"command":"ls"}',
  });
  assert.deepEqual(fakeToolCall("read_file", { path: "a" }, "c1"), {
    id: "c1",
    name: "read_file",
    arguments: '{"path":"a"}',
  });
  assert.ok(!("id" in fakeToolCall("x", {})));
});
