/**
 * The cache-break meter against the fake LLM server, through the real CLI: a session that reads
 * a file above the prune threshold until maintenance prunes old results. The breaks that
 * `run --json` and `stream-json` report are exactly the requests that did not extend the one
 * before, and their offsets are the bytes the fake server reports as cached.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COMPACTION_INSTRUCTION } from "../../core/context/summary.ts";
import { PRUNE_THRESHOLD } from "../../core/context/prune.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";
import { openTestAgent } from "../support/host_agent.ts";
import type { AgentEvent } from "../../core/agent/events.ts";

const WINDOW = 20_000;
const READS = 6;
const encoder = new TextEncoder();

/** A file well above the prune threshold: ~12 KB of distinct lines. */
const BIG = Array.from({ length: 200 }, (_, i) => `line ${i}: ${"lorem ipsum dolor ".repeat(3)}`)
  .join("\n");

interface Body {
  messages: unknown[];
  [key: string]: unknown;
}

function bytesOf(req: RecordedRequest): number {
  return encoder.encode(req.bodyText).byteLength;
}

function isSummary(req: RecordedRequest): boolean {
  const messages = (req.body as { messages: { content: string }[] }).messages;
  return messages.at(-1)?.content === COMPACTION_INSTRUCTION;
}

/** JSON without Anthropic's rolling cache marker, which moves to the newest block each time. */
function unmarked(value: unknown): string {
  return JSON.stringify(value, (key, v) => key === "cache_control" ? undefined : v);
}

/** Whether `next` keeps every message and every setting of `prev` (the output cap aside). */
function extends_(prev: Body, next: Body): boolean {
  const { messages: a, max_tokens: _a, ...restA } = prev;
  const { messages: b, max_tokens: _b, ...restB } = next;
  if (unmarked(restA) !== unmarked(restB)) return false;
  // Wire messages one by one: Anthropic's turns group messages, but this session only ever
  // appends whole turns (an assistant call, then its result).
  return a.every((m, i) => unmarked(m) === unmarked(b[i]));
}

/** Runs the session in one output format; returns what the fake saw and the CLI printed. */
async function session(format: "json" | "stream-json", kind: "openai" | "anthropic" = "openai") {
  let served = 0;
  const fake = await startFakeLlm({
    script: () => {
      served++;
      return served <= READS
        ? {
          text: `Read ${served}.`,
          toolCalls: [{ name: "read_file", arguments: '{"path":"big.txt"}' }],
        }
        : { text: "Done reading." };
    },
  });
  const repo = await makeRepo({ "big.txt": BIG });
  const home = await makeHome(fake.url, `\n[agent]\nmax_turns = ${READS + 5}\n`);
  const config = join(home, "config.toml");
  await Deno.writeTextFile(
    config,
    (await Deno.readTextFile(config))
      .replace("context_window = 128000", `context_window = ${WINDOW}`)
      .replace('kind = "openai"', `kind = "${kind}"`),
  );
  try {
    const out = await runReasonix(
      [
        "run",
        "--output-format",
        format,
        "--permission-mode",
        "auto",
        "read big.txt again and again",
      ],
      { cwd: repo, home },
    );
    assert.equal(out.code, 0, out.stderr);
    return { requests: [...fake.requests], stdout: out.stdout };
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/** The breaks the fake's bodies imply, with the fake's own cached-byte count as the offset. */
function expectedBreaks(requests: RecordedRequest[]) {
  const out: { turn: number; offset: number; bytes_invalidated: number }[] = [];
  for (let i = 1; i < requests.length; i++) {
    if (extends_(requests[i - 1].body as Body, requests[i].body as Body)) continue;
    const offset = requests[i].sharedPrefixBytes;
    out.push({ turn: i + 1, offset, bytes_invalidated: bytesOf(requests[i - 1]) - offset });
  }
  return out;
}

function checkSession(
  requests: RecordedRequest[],
  reported: {
    turn: number;
    cause: string;
    planned: boolean;
    offset: number;
    bytes_invalidated: number;
  }[],
  cache: { request_bytes: number; cached_bytes: number },
) {
  assert.ok(BIG.length > PRUNE_THRESHOLD);
  assert.equal(requests.length, READS + 1);
  assert.ok(!requests.some(isSummary), "this session must prune without summarizing");
  assert.ok(bytesOf(requests[0]) <= 14 * 1024, `first request ${bytesOf(requests[0])} bytes`);

  const expected = expectedBreaks(requests);
  assert.ok(expected.length >= 1, "the session never pruned");
  assert.deepEqual(
    reported.map(({ turn, offset, bytes_invalidated }) => ({ turn, offset, bytes_invalidated })),
    expected,
  );
  for (const b of reported) {
    assert.equal(b.cause, "prune", JSON.stringify(b));
    assert.equal(b.planned, true);
  }
  // The meter's totals are the fake's: every body byte, and the prefix it reported as cached.
  assert.equal(cache.request_bytes, requests.reduce((n, r) => n + bytesOf(r), 0));
  assert.equal(cache.cached_bytes, requests.reduce((n, r) => n + r.sharedPrefixBytes, 0));
}

Deno.test("run --json reports the prune breaks at the offsets the fake server cached", async () => {
  const { requests, stdout } = await session("json");
  const summary = JSON.parse(stdout.trim().split("\n").at(-1)!);
  assert.equal(summary.status, "completed");
  checkSession(requests, summary.cache_breaks, summary.cache);
  // The fake reports hits as the shared prefix (bytes / 4): the provider's tokens agree.
  const hits = requests.reduce((n, r) => n + Math.floor(r.sharedPrefixBytes / 4), 0);
  assert.equal(summary.tokens.cache_hit, hits);
});

Deno.test("stream-json writes a reasonix_cache_break line per break, after the prune it explains", async () => {
  const { requests, stdout } = await session("stream-json");
  const lines = stdout.trim().split("\n").map((l) => JSON.parse(l));
  const result = lines.find((l) => l.type === "result");
  const breaks = lines.filter((l) => l.subtype === "reasonix_cache_break");
  checkSession(requests, breaks, result.reasonix.cache);
  assert.deepEqual(
    result.reasonix.cache_breaks,
    breaks.map(({ type: _t, subtype: _s, session_id: _i, uuid: _u, ...b }) => b),
  );
  // Each break follows the compaction line of the same request.
  for (const b of breaks) {
    const at = lines.indexOf(b);
    assert.equal(
      lines.slice(0, at).findLast((l) => l.subtype?.startsWith("reasonix_"))?.subtype,
      "reasonix_compaction",
    );
  }
  assert.equal(lines.filter((l) => l.subtype === "reasonix_cache_miss").length, 0);
});

Deno.test("the meter measures Anthropic's wire body too: offsets agree with the fake's anthropic cache", async () => {
  const { requests, stdout } = await session("json", "anthropic");
  assert.ok(requests.every((r) => r.path.endsWith("/messages")));
  const summary = JSON.parse(stdout.trim().split("\n").at(-1)!);
  assert.equal(summary.status, "completed", JSON.stringify(summary.error));
  checkSession(requests, summary.cache_breaks, summary.cache);
});

Deno.test("a model switch keeps the session's meter: the next request is a model break at the fake's offset", async () => {
  const fake = await startFakeLlm({ script: () => ({ text: "Noted." }) });
  const repo = await makeRepo({ "a.txt": "a" });
  const home = await makeHome(fake.url);
  const config = join(home, "config.toml");
  await Deno.writeTextFile(
    config,
    (await Deno.readTextFile(config)).replace(
      'models = ["fake-model"]',
      'models = ["fake-model", "fake-model-2"]',
    ),
  );
  const runtime = await openTestAgent({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
  });
  const signal = new AbortController().signal;
  const events: AgentEvent[] = [];
  try {
    for await (const e of runtime.agent.run({ text: "remember a" }, { signal })) events.push(e);
    const id = runtime.agent.session.id;
    await runtime.agent.close();
    // What `/model` does: a new agent on the same session.
    const next = await runtime.host.createAgent({
      model: "fake/fake-model-2",
      transcript: { resume: id },
    });
    try {
      for await (const e of next.run({ text: "and b" }, { signal })) events.push(e);
      assert.equal(next.cacheMeter, runtime.agent.cacheMeter);
    } finally {
      await next.close();
    }
  } finally {
    await runtime.host.close();
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
  const breaks = events.flatMap((e) => e.type === "cache_break" ? [e.cacheBreak] : []);
  assert.equal(fake.requests.length, 2);
  assert.equal(breaks.length, 1);
  assert.equal(breaks[0].cause, "model");
  assert.equal(breaks[0].planned, false);
  assert.match(breaks[0].detail, /fake-model → fake-model-2/);
  assert.equal(breaks[0].offset, fake.requests[1].sharedPrefixBytes);
  assert.equal(
    breaks[0].bytesInvalidated,
    bytesOf(fake.requests[0]) - fake.requests[1].sharedPrefixBytes,
  );
});
