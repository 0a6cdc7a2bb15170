/**
 * Context maintenance against the fake LLM server, through the real runtime: a 300-turn
 * session with a small window crosses the compaction trigger several times.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openTestAgent } from "../support/host_agent.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import { COMPACTION_INSTRUCTION } from "../../core/context/summary.ts";
import { readTranscript } from "../../core/store/transcript.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo } from "./support.ts";

const WINDOW = 24_000;
const TRIGGER = Math.floor(WINDOW * 0.8);

function isSummary(req: RecordedRequest): boolean {
  const messages = (req.body as { messages: { content: string }[] }).messages;
  return messages.at(-1)?.content === COMPACTION_INSTRUCTION;
}

/** Where the messages array of a body closes. */
function messagesEnd(body: string): number {
  return body.lastIndexOf("]");
}

async function runSession(
  turns: number,
  summary: (n: number) => FakeStep,
  task = "work through the data file, one step at a time",
) {
  let summaries = 0;
  let normal = 0;
  const fake = await startFakeLlm({
    script: (req) => {
      if (isSummary(req)) return summary(++summaries);
      normal++;
      return normal < turns
        ? {
          text: `Step ${normal}.`,
          toolCalls: [{ name: "read_file", arguments: '{"path":"data.txt"}' }],
          chunkBytes: 65536,
        }
        : { text: "All steps done.", chunkBytes: 65536 };
    },
  });
  const repo = await makeRepo({
    "data.txt": Array.from({ length: 40 }, (_, i) => `line ${i}: ${"lorem ipsum ".repeat(4)}`)
      .join("\n"),
  });
  const home = await makeHome(fake.url, `\n[agent]\nmax_turns = ${turns + 10}\n`);
  await Deno.writeTextFile(
    join(home, "config.toml"),
    (await Deno.readTextFile(join(home, "config.toml"))).replace(
      "context_window = 128000",
      `context_window = ${WINDOW}`,
    ),
  );
  const runtime = await openTestAgent({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
    flags: {},
  });
  const events: AgentEvent[] = [];
  try {
    for await (
      const event of runtime.agent.run({ text: task }, { signal: new AbortController().signal })
    ) {
      events.push(event);
    }
  } finally {
    await runtime.dispose();
  }
  const transcript = await readTranscript(runtime.sessionPath);
  await fake.close();
  return {
    fake,
    events,
    transcript,
    cleanup: async () => {
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

Deno.test("a 300-turn session compacts several times and stays cache-stable between compactions", async () => {
  const { fake, events, transcript, cleanup } = await runSession(
    300,
    (n) => ({ text: `Checkpoint ${n}: read data.txt repeatedly; keep stepping until step 300.` }),
  );
  try {
    const done = events.at(-1) as Extract<AgentEvent, { type: "done" }>;
    assert.equal(done.status, "completed", JSON.stringify(done.error));
    assert.equal(done.turns, 300);

    const requests = fake.requests;
    const summaries = requests.filter(isSummary);
    assert.ok(summaries.length >= 3, `only ${summaries.length} summaries`);
    const reports = events.filter((e) => e.type === "compaction");
    assert.ok(reports.every((e) => e.type === "compaction" && e.report.phase === "summarized"));
    assert.equal(reports.length, summaries.length);

    let byteExtensions = 0;
    for (let i = 1; i < requests.length; i++) {
      const prev = requests[i - 1];
      const next = requests[i];
      if (isSummary(next)) {
        // The summary request shares the live request's prefix up to the instruction.
        const cut = next.bodyText.lastIndexOf(',{"role":"user","content":"<compaction-request>');
        assert.ok(cut > 0);
        assert.equal(next.bodyText.slice(0, cut), prev.bodyText.slice(0, cut), `summary ${i}`);
        assert.ok(next.sharedPrefixBytes >= cut);
        continue;
      }
      if (isSummary(prev)) {
        // After maintenance the next request is below the trigger.
        const promptTokens = Math.ceil(next.bodyText.length / 4);
        assert.ok(
          promptTokens < TRIGGER,
          `request ${i} is ${promptTokens} tokens after maintenance`,
        );
        continue;
      }
      // Between compactions every request extends the previous one byte for byte.
      assert.ok(
        next.bodyText.startsWith(prev.bodyText.slice(0, messagesEnd(prev.bodyText))),
        `request ${i} does not extend request ${i - 1}`,
      );
      byteExtensions++;
    }
    assert.ok(byteExtensions >= 290 - summaries.length);

    // Checkpoints were persisted; the canonical transcript kept every message.
    assert.equal(transcript?.projection?.generation, summaries.length);
    assert.equal(transcript?.messages.length, 1 + 299 * 2 + 1);
    assert.match(transcript!.projection!.summary!, /^Checkpoint \d+/);
  } finally {
    await cleanup();
  }
});

Deno.test("summaries that fail never forge a digest: the truncate projection takes over", async () => {
  const { fake, events, transcript, cleanup } = await runSession(
    120,
    (n) =>
      n % 2
        ? { text: "" }
        : { status: 400, body: { error: { message: "summaries are broken today" } } },
  );
  try {
    const done = events.at(-1) as Extract<AgentEvent, { type: "done" }>;
    assert.equal(done.status, "completed", JSON.stringify(done.error));
    const phases = events.flatMap((e) => e.type === "compaction" ? [e.report.phase] : []);
    assert.ok(phases.includes("failed"));
    assert.ok(phases.includes("truncated"), phases.join(","));
    assert.ok(!phases.includes("summarized"));
    assert.equal(transcript?.projection?.summary, undefined, "no digest was forged");
    assert.ok(transcript!.failures.length > 0);
    // After truncation each request is under the window again.
    const last = fake.requests.filter((r) => !isSummary(r)).at(-1)!;
    assert.ok(Math.ceil(last.bodyText.length / 4) < WINDOW);
  } finally {
    await cleanup();
  }
});

Deno.test("a request that cannot fit even truncated ends with compaction_required", async () => {
  const { events, cleanup } = await runSession(
    5,
    () => ({ text: "" }),
    "x".repeat(WINDOW * 5),
  );
  try {
    const done = events.at(-1) as Extract<AgentEvent, { type: "done" }>;
    assert.equal(done.status, "error");
    assert.equal(done.error?.code, "compaction_required");
    assert.match(done.error!.message, /does not fit/);
  } finally {
    await cleanup();
  }
});
