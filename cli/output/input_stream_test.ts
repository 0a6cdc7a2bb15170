import assert from "node:assert/strict";
import { parseTurnLine, readTurnLines, type TurnLine } from "./input_stream.ts";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((c) => encoder.encode(c)));
}

async function all(readable: ReadableStream<Uint8Array>): Promise<TurnLine[]> {
  const out: TurnLine[] = [];
  for await (const item of readTurnLines(readable)) out.push(item);
  return out;
}

Deno.test("a user line with string content is one turn", () => {
  assert.deepEqual(
    parseTurnLine('{"type":"user","message":{"role":"user","content":"fix the test"}}'),
    { text: "fix the test" },
  );
});

Deno.test("text blocks join with a line break and image blocks become images", () => {
  const line = JSON.stringify({
    type: "user",
    session_id: "ignored",
    parent_tool_use_id: null,
    message: {
      role: "user",
      content: [
        { type: "text", text: "look at this" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0" } },
        { type: "text", text: "and this" },
        { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      ],
    },
  });
  assert.deepEqual(parseTurnLine(line), {
    text: "look at this\nand this",
    images: [{ mediaType: "image/png", data: "iVBORw0" }, { url: "https://example.com/a.png" }],
  });
});

Deno.test("lines that are not user turns say what is wrong", () => {
  const cases: [string, RegExp][] = [
    ["{not json", /^not JSON/],
    ["[1]", /expected a JSON object/],
    ['{"type":"assistant","message":{}}', /expected \{"type":"user",…\}, got type "assistant"/],
    ['{"type":"user"}', /needs a "message" object/],
    ['{"type":"user","message":{"role":"system","content":"x"}}', /role must be "user"/],
    ['{"type":"user","message":{"content":"  "}}', /empty/],
    ['{"type":"user","message":{"content":42}}', /string or an array/],
    [
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x"}]}}',
      /content\[0\] has type "tool_result"/,
    ],
    [
      '{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"x"}}]}}',
      /media_type must be one of/,
    ],
  ];
  for (const [line, want] of cases) {
    const parsed = parseTurnLine(line);
    assert.equal(typeof parsed, "string", line);
    assert.match(parsed as string, want, line);
  }
});

Deno.test("stdin is split into numbered lines across chunks, CRLF and a missing last newline", async () => {
  const turn = (text: string) => JSON.stringify({ type: "user", message: { content: text } });
  const first = turn("one");
  const items = await all(
    streamOf(
      first.slice(0, 7),
      `${first.slice(7)}\r\n\n`,
      `${turn("two")}\n{oops\n`,
      turn("three"),
    ),
  );
  assert.deepEqual(items, [
    { ok: true, line: 1, input: { text: "one" } },
    { ok: true, line: 3, input: { text: "two" } },
    { ok: false, error: { line: 4, message: items[2].ok ? "" : items[2].error.message } },
    { ok: true, line: 5, input: { text: "three" } },
  ]);
  assert.ok(!items[2].ok && items[2].error.message.startsWith("not JSON"));
});

Deno.test("a multi-byte character split between chunks survives", async () => {
  const bytes = new TextEncoder().encode(
    `${JSON.stringify({ type: "user", message: { content: "修复测试" } })}\n`,
  );
  const split = bytes.indexOf(0xe4) + 1;
  const items = await all(ReadableStream.from([bytes.slice(0, split), bytes.slice(split)]));
  assert.deepEqual(items, [{ ok: true, line: 1, input: { text: "修复测试" } }]);
});
