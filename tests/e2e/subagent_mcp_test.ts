/**
 * Subagents and a real MCP SDK server (`tests/mcp/fixtures/subagent_server.ts`) through the
 * real host and the fake LLM server: a writer's MCP target refused before its server starts,
 * a serial server shared by two children, and MCP writes keeping a reservation whole.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  claimlessBesideClaimed,
  delegate,
  type HostSession,
  isChild,
  lastTool,
  openSession,
  script,
  toolResults,
} from "./delegation_support.ts";
import {
  type FakeStep,
  fakeToolCall,
  type RecordedRequest,
  startFakeLlm,
} from "../fake_llm/mod.ts";
import { DENO_JSON } from "../mcp/servers.ts";

const SERVER = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "mcp",
  "fixtures",
  "subagent_server.ts",
);

/** A `[[mcp.servers]]` table for the fixture, with its record files in `dir`. */
function serverToml(
  name: string,
  dir: string,
  opts: { concurrency?: "serial" | "parallel"; require?: boolean } = {},
): string {
  const args = ["run", "-A", "--quiet", "--config", DENO_JSON, SERVER]
    .map((a) => JSON.stringify(a)).join(", ");
  const env = [
    `FIXTURE_NAME = "${name}"`,
    `FIXTURE_SPAWN_FILE = ${JSON.stringify(join(dir, "spawns"))}`,
    `FIXTURE_LOG_FILE = ${JSON.stringify(join(dir, "log"))}`,
    ...(opts.require ? [`FIXTURE_REQUIRE_FILE = ${JSON.stringify(join(dir, "ready"))}`] : []),
  ].join(", ");
  return `
[[mcp.servers]]
name = "${name}"
command = ${JSON.stringify(Deno.execPath())}
args = [${args}]
env = { ${env} }
sandbox = false
${opts.concurrency ? `concurrency = "${opts.concurrency}"` : ""}
`;
}

function open(
  fake: { url: string },
  files: Record<string, string>,
  toml: string,
): Promise<HostSession> {
  return openSession(fake, files, toml, { mcpReadyWaitMs: 15_000, turnTimeoutMs: 30_000 });
}

const lines = async (path: string): Promise<string[]> =>
  (await Deno.readTextFile(path).catch(() => "")).split("\n").filter(Boolean);

Deno.test("a claimed writer's MCP writer is refused before its server starts again", async () => {
  const dir = await Deno.makeTempDir();
  let parentCalls = 0;
  const fake = await startFakeLlm({
    script: script(
      (req) => {
        // The parent delegates, then calls the same target itself: its call starts the server.
        parentCalls++;
        if (parentCalls === 1) {
          return {
            toolCalls: [fakeToolCall("task", {
              tasks: [{ prompt: "claimed: note it", write_paths: ["src"] }],
            })],
          };
        }
        if (parentCalls === 2) {
          return {
            toolCalls: [fakeToolCall("use_capability", { capability: "mcp:lz:write_note" })],
          };
        }
        return { text: `parent saw: ${lastTool(req)}` };
      },
      {
        claimed: (req) =>
          toolResults(req) === 0
            ? { toolCalls: [fakeToolCall("use_capability", { capability: "mcp:lz:write_note" })] }
            : { text: `child saw: ${lastTool(req)}` },
      },
    ),
  });
  const s = await open(fake, { "src/a.ts": "a\n" }, serverToml("lz", dir, { require: true }));
  try {
    assert.equal((await lines(join(dir, "spawns"))).length, 1, "the first start failed");
    // From now on a fresh attempt would succeed.
    await Deno.writeTextFile(join(dir, "ready"), "");
    const events = await s.drain("note it");
    const child = fake.requests.filter(isChild);
    assert.match(lastTool(child[1])!, /Unknown capability "mcp:lz:write_note"/);
    const taskEnd = events.findIndex((e) => e.type === "tool_end" && e.call.name === "task");
    assert.ok(taskEnd >= 0);
    // The parent's own call is the one that started the server, after the child had ended.
    const spawns = await lines(join(dir, "spawns"));
    assert.equal(spawns.length, 2, spawns.join(","));
    const writes = (await lines(join(dir, "log"))).filter((l) => l.includes("write"));
    assert.equal(writes.length, 1, "only the parent's call wrote");
    const parentResult = events.find((e) =>
      e.type === "tool_end" && e.call.name === "use_capability"
    );
    assert.ok(parentResult?.type === "tool_end" && /written/.test(parentResult.result.content));
  } finally {
    await s.close();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Two read-only children calling `slow_look` at once; the server's own record of the calls. */
async function twoLookers(concurrency: "serial" | "parallel") {
  const dir = await Deno.makeTempDir();
  const look = (tag: string) => (req: RecordedRequest): FakeStep =>
    toolResults(req) === 0
      ? {
        toolCalls: [fakeToolCall("use_capability", {
          capability: "mcp:sv:slow_look",
          arguments: { ms: 400, tag },
        })],
      }
      : { text: `${tag}: ${lastTool(req)}` };
  const fake = await startFakeLlm({
    script: script(
      delegate({
        tasks: [
          { prompt: "left: look", read_only: true },
          { prompt: "right: look", read_only: true },
        ],
      }),
      { left: look("left"), right: look("right") },
    ),
  });
  const s = await open(fake, {}, serverToml("sv", dir, { concurrency }));
  try {
    await s.drain("look twice");
    const calls = (await lines(join(dir, "log"))).map((l) =>
      JSON.parse(l) as { tag: string; start: number; end: number }
    );
    assert.deepEqual(calls.map((c) => c.tag).sort(), ["left", "right"]);
    const [a, b] = calls;
    return a.start < b.end && b.start < a.end;
  } finally {
    await s.close();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a serial MCP server shared by two children never runs two calls at once", async () => {
  assert.equal(await twoLookers("serial"), false, "the calls overlapped");
});

Deno.test("the same server declared parallel runs the two children's calls at once", async () => {
  assert.equal(await twoLookers("parallel"), true, "the calls did not overlap");
});

/** A claim-less writer whose first step is `first`, and a writer claiming `b` queued behind it. */
async function wideThenClaimed(first: FakeStep) {
  const dir = await Deno.makeTempDir();
  try {
    const t = await claimlessBesideClaimed(
      [
        first,
        { toolCalls: [fakeToolCall("write_file", { path: "a.txt", content: "wide" })] },
        { toolCalls: [fakeToolCall("read_file", { path: "a.txt" })], delayMs: 400 },
        { text: "wide done" },
      ],
      (fake, files) => open(fake, files, serverToml("sv", dir)),
    );
    return { overlapped: t.claimedStart < t.wideLast, log: await lines(join(dir, "log")) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("an MCP write keeps a claim-less writer's reservation whole; a read-only MCP call does not", async () => {
  const wrote = await wideThenClaimed({
    toolCalls: [fakeToolCall("use_capability", { capability: "mcp:sv:write_note" })],
  });
  assert.equal(wrote.log.filter((l) => l.includes("write")).length, 1, "the MCP writer ran");
  assert.equal(wrote.overlapped, false, "the claimed writer waited for the whole workspace");

  const looked = await wideThenClaimed({
    toolCalls: [fakeToolCall("use_capability", {
      capability: "mcp:sv:slow_look",
      arguments: { ms: 1, tag: "wide" },
    })],
  });
  assert.equal(looked.overlapped, true, "a read-only call left the reservation narrowable");
});
