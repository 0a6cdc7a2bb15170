/**
 * Cache-first context maintenance under pressure, through the real host against the fake LLM
 * server: a model reads a 12 KB file again and again under a small window, so pruning and
 * summaries run many times. Every request must keep the bytes of the one before it except where
 * content changed, and failed summaries must not be paid for turn after turn.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PRUNE_MARKER } from "../../core/context/prune.ts";
import { BLANKED_RESULT } from "../../core/context/projection.ts";
import { isSummaryRequestBody, readLoopSession } from "../support/read_loop.ts";

interface WireMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
}

function messages(body: string): WireMessage[] {
  return (JSON.parse(body) as { messages: WireMessage[] }).messages;
}

/** Whether `next` is `prev` rewritten by maintenance: the same tool result, pruned or blanked. */
function isRewrite(prev: WireMessage, next: WireMessage): boolean {
  return prev.role === "tool" && next.role === "tool" && prev.tool_call_id === next.tool_call_id &&
    typeof next.content === "string" &&
    (next.content.includes(PRUNE_MARKER) || next.content === BLANKED_RESULT);
}

/**
 * The prefix rule, request by request: a summary request carries the previous request's bytes
 * up to its instruction; a normal request after a normal one keeps every earlier message
 * byte for byte unless maintenance rewrote that tool result; nothing counts in the text.
 */
function assertPrefixRule(
  bodies: readonly string[],
): { summaries: number; rewrites: number; resets: number } {
  let summaries = 0;
  let resets = 0;
  let rewrites = 0;
  let lastNormal: string | undefined;
  for (let i = 0; i < bodies.length; i++) {
    const body = bodies[i];
    assert.doesNotMatch(body, /generation=/, `request ${i} carries a counter`);
    if (isSummaryRequestBody(body)) {
      summaries++;
      const cut = body.lastIndexOf(',{"role":"user","content":"<compaction-request>');
      assert.ok(cut > 0);
      assert.equal(
        body.slice(0, cut),
        bodies[i - 1].slice(0, cut),
        `summary request ${i} does not reuse the bytes of request ${i - 1}`,
      );
      continue;
    }
    if (lastNormal !== undefined) {
      const prev = messages(lastNormal);
      const next = messages(body);
      const headOf = (ms: WireMessage[]) => ms.findIndex((m) => m.role !== "system");
      const [hp, hn] = [headOf(prev), headOf(next)];
      if (JSON.stringify(prev[hp]) !== JSON.stringify(next[hn])) {
        // The one deliberate reset: a new checkpoint, or a truncation that dropped old turns.
        assert.match(
          String(next[hn].content),
          /^(<checkpoint>\n|\[Context note: )/,
          `request ${i} changed its first message without a checkpoint`,
        );
        resets++;
      } else {
        assert.ok(next.length >= prev.length, `request ${i} lost messages`);
        prev.forEach((m, k) => {
          if (JSON.stringify(m) === JSON.stringify(next[k])) return;
          assert.ok(isRewrite(m, next[k]), `request ${i} rewrote message ${k} (${m.role})`);
          rewrites++;
        });
      }
    }
    lastNormal = body;
  }
  return { summaries, rewrites, resets };
}

Deno.test("a 20K window read 40 times keeps at least 65% of all request bytes cacheable", async () => {
  const m = await readLoopSession({
    window: 20_000,
    reads: 40,
    fileBytes: 12_000,
    summaries: "ok",
  });
  assert.equal(m.status, "completed", m.error);
  const rule = assertPrefixRule(m.bodies);
  assert.ok(rule.summaries >= 4, `summaries: ${rule.summaries}`);
  assert.equal(rule.resets, rule.summaries, "every reset is an installed summary");
  assert.ok(rule.rewrites >= 10, `prunes rewrote ${rule.rewrites} results`);
  assert.ok((m.phases.pruned ?? 0) >= 10);
  assert.ok(m.prefixShare >= 0.65, `cacheable share ${m.prefixShare.toFixed(3)}`);
  // The cache-break meter saw every request, summaries included, as the server did.
  assert.deepEqual(m.meter, m.wire);
});

Deno.test("a summary model that returns nothing is paid at most six times over 110 reads", async () => {
  const m = await readLoopSession({
    window: 128_000,
    reads: 110,
    fileBytes: 12_000,
    summaries: "empty",
  });
  assert.equal(m.status, "completed", m.error);
  assert.ok(m.summaryRequests >= 1, "maintenance did try to summarize");
  assert.ok(m.summaryRequests <= 6, `${m.summaryRequests} paid summary attempts`);
  assertPrefixRule(m.bodies);
});

Deno.test("a provider whose real window is below the configured one: learned, kept, run finished", async () => {
  const home = await Deno.makeTempDir({ prefix: "reasonix-window-home-" });
  try {
    const first = await readLoopSession({
      window: 200_000,
      reads: 12,
      fileBytes: 12_000,
      summaries: "ok",
      realLimit: 16_000,
      home,
    });
    assert.equal(first.status, "completed", first.error);
    assert.ok(first.rejected >= 1, "the provider did reject an oversized request");
    assert.ok(
      first.rejected <= 1,
      `${first.rejected} requests rejected: the limit was not learned`,
    );
    const stored = JSON.parse(await Deno.readTextFile(join(home, "learned_limits.json")));
    assert.deepEqual(Object.values(stored.context_windows), [16_000]);
    assert.equal((await Deno.stat(join(home, "learned_limits.json"))).mode! & 0o777, 0o600);

    // The next session on this provider plans for the learned window from its first request.
    const second = await readLoopSession({
      window: 200_000,
      reads: 12,
      fileBytes: 12_000,
      summaries: "ok",
      realLimit: 16_000,
      home,
      port: first.port,
    });
    assert.equal(second.status, "completed", second.error);
    assert.equal(second.rejected, 0);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
