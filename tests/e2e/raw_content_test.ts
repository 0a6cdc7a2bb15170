/**
 * Raw tool content end to end (spec §3.6): a bash output far over the 32 KB `Content` bound is
 * kept whole (up to the 4 MiB cap) with the session, `session:tool_result` pages through it in
 * the run that produced it and after `--continue` in a new process, the model is never told of
 * a file, and the raw text never reaches a request the model did not page.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { MAX_TOOL_CONTENT_BYTES } from "../../core/agent/bound.ts";
import { MAX_RAW_CONTENT_BYTES } from "../../tools/types.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

interface WireMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
}

function toolResult(body: unknown, callId: string): string {
  const found = (body as { messages: WireMessage[] }).messages.find((m) =>
    m.role === "tool" && m.tool_call_id === callId
  );
  assert.ok(found, `no result for ${callId}`);
  return found.content ?? "";
}

/** `lines` lines `line 000001` … : 12 bytes each. */
function lines(from: number, to: number): string {
  let out = "";
  for (let i = from; i <= to; i++) out += `line ${String(i).padStart(6, "0")}\n`;
  return out;
}

const page = (callId: string, offset: number, id: string) => ({
  id,
  name: "use_capability",
  arguments: JSON.stringify({
    capability: "session:tool_result",
    arguments: { call_id: callId, offset },
  }),
});

const bytes = (s: string): number => new TextEncoder().encode(s).length;

Deno.test("a large bash output is kept whole and paged through, after --continue too", async () => {
  // 14,000 lines: 168,000 bytes, the size of the output the issue measured.
  const big = lines(1, 14_000);
  // 400,000 lines: 4.8 MB, over the raw cap.
  const huge = lines(1, 400_000);
  const first = await startFakeLlm({
    script: [
      {
        toolCalls: [
          { id: "big", name: "bash", arguments: '{"command":"seq -f \'line %06g\' 1 14000"}' },
          { id: "huge", name: "bash", arguments: '{"command":"seq -f \'line %06g\' 1 400000"}' },
        ],
      },
      { toolCalls: [page("big", 100_000, "p1")] },
      { text: "Read it." },
    ],
  });
  const repo = await makeRepo({});
  const home = await makeHome(first.url);
  let second: Awaited<ReturnType<typeof startFakeLlm>> | undefined;
  try {
    const run = await runReasonix(["run", "--permission-mode", "auto", "show me"], {
      cwd: repo,
      home,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(first.requests.length, 3);

    // The model sees a bounded result that names no file, only the capability.
    const shown = toolResult(first.requests[1].body, "big");
    assert.ok(bytes(shown) <= MAX_TOOL_CONTENT_BYTES, `${bytes(shown)} bytes`);
    assert.match(shown, /^line 000001\n/);
    assert.match(
      shown,
      /\[the full output \(168000 bytes\) is kept with this result: read it with `use_capability` "session:tool_result"/,
    );
    assert.match(shown, /\nline 014000\n\[the full output[^\n]*\]\nExit code: 0$/);
    const hugeShown = toolResult(first.requests[1].body, "huge");
    assert.ok(bytes(hugeShown) <= MAX_TOOL_CONTENT_BYTES);
    const kept = MAX_RAW_CONTENT_BYTES - 4096;
    assert.match(
      hugeShown,
      new RegExp(
        `\\[the first ${kept} bytes of the output \\(${huge.length} bytes in all\\) are kept`,
      ),
    );
    for (const text of [shown, hugeShown]) {
      assert.doesNotMatch(text, /saved to|\.log\b|\/tmp\/|reasonix-/);
    }

    // Offset 100000 is inside the output, not "past the end".
    const paged = toolResult(first.requests[2].body, "p1");
    const full = big + "Exit code: 0";
    assert.equal(
      paged,
      `[characters 100000-120000 of ${full.length}]\n${full.slice(100_000, 120_000)}\n` +
        `[... ${full.length - 120_000} more characters; call again with offset=120000]`,
    );
    // The middle never reached the model before it asked: only the page carries it.
    assert.ok(!first.requests[1].bodyText.includes("line 005000"));

    // A new process on the same session pages through both results.
    second = await startFakeLlm({
      script: [
        { toolCalls: [page("big", 160_000, "p2"), page("huge", kept - 10, "p3")] },
        { text: "Still there." },
      ],
    });
    await Deno.writeTextFile(
      join(home, "config.toml"),
      (await Deno.readTextFile(join(home, "config.toml"))).replace(first.url, second.url),
    );
    const resumed = await runReasonix(["run", "--continue", "again"], { cwd: repo, home });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(second.requests.length, 2);
    // Replay carries the bounded content only, byte for byte what the first run sent.
    assert.equal(toolResult(second.requests[0].body, "big"), shown);
    assert.ok(!second.requests[0].bodyText.includes("line 005000"));
    assert.equal(
      toolResult(second.requests[1].body, "p2"),
      `[characters 160000-${full.length} of ${full.length}]\n${full.slice(160_000)}`,
    );
    // Above the cap, the kept start ends with a note of what was not kept.
    const tail = toolResult(second.requests[1].body, "p3");
    assert.match(tail, /^\[characters \d+-\d+ of \d+\]\n/);
    assert.ok(tail.includes(huge.slice(kept - 10, kept - 1)), tail);
    assert.match(
      tail,
      /\n\[output cut here: the remaining \d+ bytes were not kept\]\nExit code: 0$/,
    );
  } finally {
    await first.close();
    await second?.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
