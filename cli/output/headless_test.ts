import assert from "node:assert/strict";
import { z } from "zod";
import { Agent } from "../../core/agent/agent.ts";
import { Session } from "../../core/agent/session.ts";
import { ScriptedProvider, textReply, toolReply } from "../../tests/support/scripted_provider.ts";
import { createTestWorkspace } from "../../tools/builtin/test_context.ts";
import { defineTool } from "../../tools/define.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { resolveFormats } from "./format.ts";
import { createOutput, runTurns } from "./headless.ts";
import { readTurnLines } from "./input_stream.ts";

const echo = defineTool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string() }),
  readOnly: true,
  run: (args) => Promise.resolve({ content: `echo: ${args.text}` }),
});

function stdin(...lines: string[]): ReadableStream<Uint8Array> {
  return ReadableStream.from([new TextEncoder().encode(lines.map((l) => `${l}\n`).join(""))]);
}

const user = (content: string) =>
  JSON.stringify({ type: "user", message: { role: "user", content } });

Deno.test("stream-json turns from stdin run in one session, each answered by a result", async () => {
  await using ws = await createTestWorkspace();
  const provider = new ScriptedProvider([
    toolReply({ id: "call_a", name: "echo", args: { text: "hi" } }),
    textReply("first answer"),
    textReply("second answer"),
  ]);
  const agent = new Agent({
    provider,
    model: "m",
    session: new Session("s-7"),
    registry: new ToolRegistry([echo as Tool]),
    systemPrompt: "system",
    toolContext: ws.ctx,
    maxTurns: 10,
  });
  const out: string[] = [];
  const err: string[] = [];
  const output = createOutput("stream-json", {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    color: false,
    info: { sessionId: "s-7", model: "p/m", tools: ["echo"], cwd: ws.root, permissionMode: "auto" },
  });
  const outcome = await runTurns({
    runner: agent,
    turns: readTurnLines(stdin(user("one"), "", user("two"))),
    output,
    signal: new AbortController().signal,
  });
  assert.deepEqual(outcome, { status: "completed", turns: 2 });
  const lines = out.join("").trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines[0].subtype, "init");
  const results = lines.filter((l) => l.type === "result");
  assert.deepEqual(results.map((r) => r.result), ["first answer", "second answer"]);
  assert.equal(lines.at(-1).type, "result");
  // The second turn's request carries the whole first turn.
  const second = provider.requests[2].messages.map((m) => [m.role, m.content]);
  assert.deepEqual(second.slice(0, 4), [
    ["user", "one"],
    ["assistant", ""],
    ["tool", "echo: hi"],
    ["assistant", "first answer"],
  ]);
  assert.deepEqual(second.at(-1), ["user", "two"]);
  const uses = lines.flatMap((l) => l.type === "assistant" ? l.message.content : [])
    .filter((b: { type: string }) => b.type === "tool_use");
  const toolResults = lines.flatMap((l) => l.type === "user" ? l.message.content : []);
  assert.deepEqual(uses.map((b: { id: string }) => b.id), ["call_a"]);
  assert.deepEqual(toolResults.map((b: { tool_use_id: string }) => b.tool_use_id), ["call_a"]);
  assert.deepEqual(err, []);
});

Deno.test("a malformed line stops reading after the turns before it, with an error result", async () => {
  await using ws = await createTestWorkspace();
  const provider = new ScriptedProvider([textReply("done one")]);
  const agent = new Agent({
    provider,
    model: "m",
    session: new Session("s-8"),
    registry: new ToolRegistry([]),
    systemPrompt: "system",
    toolContext: ws.ctx,
    maxTurns: 10,
  });
  const out: string[] = [];
  const err: string[] = [];
  const output = createOutput("stream-json", {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    color: false,
    info: { sessionId: "s-8", model: "p/m", tools: [], cwd: ws.root, permissionMode: "auto" },
  });
  const outcome = await runTurns({
    runner: agent,
    turns: readTurnLines(stdin(user("one"), '{"type":"user"', user("never read"))),
    output,
    signal: new AbortController().signal,
  });
  assert.equal(outcome.status, "completed");
  assert.equal(outcome.turns, 1);
  assert.equal(outcome.inputError?.line, 2);
  assert.equal(provider.requests.length, 1);
  const lines = out.join("").trimEnd().split("\n").map((l) => JSON.parse(l));
  const results = lines.filter((l) => l.type === "result");
  assert.deepEqual(results.map((r) => r.is_error), [false, true]);
  assert.match(results[1].result, /^stdin line 2: not JSON/);
  assert.match(err.join(""), /reasonix run: stdin line 2: not JSON/);
});

Deno.test("a failed turn does not end the session; its status is the outcome", async () => {
  await using ws = await createTestWorkspace();
  const provider = new ScriptedProvider([
    { chunks: [], error: new Error("boom") },
    textReply("recovered"),
  ]);
  const agent = new Agent({
    provider,
    model: "m",
    session: new Session("s-9"),
    registry: new ToolRegistry([]),
    systemPrompt: "system",
    toolContext: ws.ctx,
    maxTurns: 10,
  });
  const out: string[] = [];
  const outcome = await runTurns({
    runner: agent,
    turns: readTurnLines(stdin(user("one"), user("two"))),
    output: createOutput("stream-json", {
      out: (t) => out.push(t),
      err: () => {},
      color: false,
      info: { sessionId: "s-9", model: "p/m", tools: [], cwd: ws.root, permissionMode: "auto" },
    }),
    signal: new AbortController().signal,
  });
  assert.deepEqual(outcome, { status: "error", turns: 2 });
  const results = out.join("").trimEnd().split("\n").map((l) => JSON.parse(l))
    .filter((l) => l.type === "result");
  assert.deepEqual(results.map((r) => [r.subtype, r.is_error]), [
    ["error_during_execution", true],
    ["success", false],
  ]);
});

Deno.test("a cancel while waiting for the next line ends the session as cancelled", async () => {
  const controller = new AbortController();
  // A stdin that never sends anything.
  const silent = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
  const pending = runTurns({
    runner: { run: () => (async function* () {})() },
    turns: readTurnLines(silent),
    output: createOutput("stream-json", {
      out: () => {},
      err: () => {},
      color: false,
      info: { sessionId: "s", model: "p/m", tools: [], cwd: "/", permissionMode: "auto" },
    }),
    signal: controller.signal,
  });
  controller.abort(new DOMException("Cancelled by the user", "AbortError"));
  assert.deepEqual(await pending, { status: "cancelled", turns: 0 });
});

Deno.test("--json is the alias of json; stream-json input needs stream-json output and stdin", () => {
  assert.deepEqual(resolveFormats({}), { outputFormat: "text", inputFormat: "text" });
  assert.deepEqual(resolveFormats({ json: true }), { outputFormat: "json", inputFormat: "text" });
  assert.deepEqual(resolveFormats({ json: true, outputFormat: "json" }), {
    outputFormat: "json",
    inputFormat: "text",
  });
  assert.deepEqual(resolveFormats({ outputFormat: "stream-json", inputFormat: "stream-json" }), {
    outputFormat: "stream-json",
    inputFormat: "stream-json",
  });
  assert.match(
    resolveFormats({ outputFormat: "yaml" }) as string,
    /must be text, json or stream-json/,
  );
  assert.match(resolveFormats({ json: true, outputFormat: "text" }) as string, /conflicts/);
  assert.match(resolveFormats({ inputFormat: "xml" }) as string, /must be text or stream-json/);
  assert.match(resolveFormats({ inputFormat: "stream-json" }) as string, /needs --output-format/);
  assert.match(
    resolveFormats({
      outputFormat: "stream-json",
      inputFormat: "stream-json",
      task: true,
    }) as string,
    /drop the task argument/,
  );
  assert.match(
    resolveFormats({
      outputFormat: "stream-json",
      inputFormat: "stream-json",
      images: true,
    }) as string,
    /image blocks/,
  );
});
