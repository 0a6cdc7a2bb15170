import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../tools/define.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import type { Tool, ToolResult } from "../../tools/types.ts";
import { executeToolCall, type ToolGate } from "./tool_exec.ts";

const echo = defineTool({
  name: "echo",
  description: "Echoes, fails, throws or sleeps on request.",
  input: z.object({ mode: z.enum(["ok", "fail", "code", "throw", "sleep"]) }),
  readOnly: true,
  async run(args, ctx) {
    if (args.mode === "fail") return { content: "it failed", isError: true };
    if (args.mode === "code") return { content: "no such file", isError: true, code: "not_found" };
    if (args.mode === "throw") throw new Error("boom");
    if (args.mode === "sleep") {
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
      return { content: "woke" };
    }
    return { content: "ok" };
  },
});

const refuse: ToolGate = {
  check: ({ tool }) => Promise.resolve({ allow: false, reason: `${tool.name} is not allowed` }),
};

function run(name: string, args: string, opts: { gate?: ToolGate } = {}): Promise<ToolResult> {
  return executeToolCall({ id: "c", name, arguments: args }, {
    registry: new ToolRegistry([echo as Tool]),
    context: {
      root: "/nonexistent",
      tempDir: "/nonexistent",
      shell: { launch: () => Promise.reject(new Error("no shell")) },
      settings: { bashTimeoutMs: 1000 },
    },
    signal: new AbortController().signal,
    timeoutMs: 200,
    gate: opts.gate,
  });
}

Deno.test("every failure leaving the tool pipeline carries a code beside its text", async () => {
  const cases: [string, string, string | undefined][] = [
    ["nope", "{}", "unknown_tool"],
    ["echo", "{not json", "invalid_arguments"],
    ["echo", "[]", "invalid_arguments"],
    ["echo", '{"mode":"other"}', "invalid_arguments"],
    ["echo", '{"mode":"throw"}', "internal"],
    ["echo", '{"mode":"sleep"}', "timeout"],
    ["echo", '{"mode":"fail"}', "failed"],
    ["echo", '{"mode":"code"}', "not_found"],
    ["echo", '{"mode":"ok"}', undefined],
  ];
  for (const [name, args, code] of cases) {
    const result = await run(name, args);
    assert.equal(result.code, code, `${name} ${args}: ${result.content}`);
    assert.equal(result.isError ?? false, code !== undefined, `${name} ${args}`);
  }
  const denied = await run("echo", '{"mode":"ok"}', { gate: refuse });
  assert.deepEqual(denied, {
    content: "echo is not allowed",
    isError: true,
    code: "permission_denied",
  });
});
