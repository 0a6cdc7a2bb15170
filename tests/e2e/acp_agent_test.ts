/**
 * End to end: `reasonix acp` as a subprocess, driven over its stdio by the official ACP SDK's
 * client side, against the fake OpenAI-compatible server. Every byte the agent writes to
 * stdout must be a JSON-RPC message.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeLlm, FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { cliEnv, makeHome, makeRepo, REASONIX_TASK } from "./support.ts";

/** How the test client answers permission requests; `hold`: only when withdrawn. */
type Answer = "once" | "session" | "deny" | "cancelled" | "hold";

/** One `reasonix acp` process and an SDK client connected to it. */
interface Agent {
  agent: acp.ClientContext;
  /** Every `session/update` received, in order. */
  updates: acp.SessionNotification[];
  /** Every `session/request_permission` received, in order. */
  permissions: acp.RequestPermissionRequest[];
  /** Says how the next permission requests are answered. */
  answer: Answer;
  /** Permission requests the agent withdrew (`$/cancel_request`). */
  withdrawn: number;
  /** Closes stdin, waits for the exit and checks stdout held only JSON-RPC. */
  close(): Promise<{ code: number; stderr: string }>;
}

const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==";

/** Checks that `text` is newline-delimited JSON-RPC 2.0 messages and nothing else. */
function assertOnlyJsonRpc(text: string): void {
  assert.ok(text === "" || text.endsWith("\n"), "stdout ends with a newline");
  const lines = text === "" ? [] : text.slice(0, -1).split("\n");
  assert.ok(lines.length > 0, "the agent answered");
  for (const [i, line] of lines.entries()) {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line);
    } catch (error) {
      throw new Error(`stdout line ${i + 1} is not JSON: ${line}`, { cause: error });
    }
    assert.equal(message.jsonrpc, "2.0", `stdout line ${i + 1} is not JSON-RPC: ${line}`);
    assert.ok(
      "method" in message || "result" in message || "error" in message,
      `stdout line ${i + 1} is neither a call nor an answer: ${line}`,
    );
  }
}

function startAgent(
  opts: { cwd: string; home: string; env?: Record<string, string>; args?: string[] },
): Agent {
  const [program, ...taskArgs] = REASONIX_TASK;
  const child = new Deno.Command(program, {
    args: [...taskArgs, "acp", ...opts.args ?? []],
    cwd: opts.cwd,
    clearEnv: true,
    env: cliEnv(opts.home, opts.env),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const [forClient, forCheck] = child.stdout.tee();
  // Held here, so closing it is the client going away (the agent sees end of input).
  const stdin = child.stdin.getWriter();
  const toAgent = new WritableStream<Uint8Array>({ write: (chunk) => stdin.write(chunk) });
  const raw = new Response(forCheck).text();
  const stderr = new Response(child.stderr).text();
  const state: Agent = {
    agent: undefined as unknown as acp.ClientContext,
    updates: [],
    permissions: [],
    answer: "once",
    withdrawn: 0,
    close: async () => {
      connection.close();
      await stdin.close().catch(() => {});
      const status = await child.status;
      const out = await raw;
      const err = await stderr;
      assertOnlyJsonRpc(out);
      return { code: status.code, stderr: err };
    },
  };
  const app = acp.client({ name: "reasonix-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      state.updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
      state.permissions.push(params);
      if (state.answer === "hold") {
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        state.withdrawn++;
        return { outcome: { outcome: "cancelled" } };
      }
      if (state.answer === "cancelled") return { outcome: { outcome: "cancelled" } };
      const kind = { once: "allow_once", session: "allow_always", deny: "reject_once" }[
        state.answer
      ];
      const option = params.options.find((o) => o.kind === kind);
      assert.ok(option, `an option of kind ${kind}`);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    });
  const connection = app.connect(acp.ndJsonStream(toAgent, forClient));
  state.agent = connection.agent;
  return state;
}

async function initialize(agent: acp.ClientContext): Promise<acp.InitializeResponse> {
  return await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "reasonix-e2e", version: "1" },
  });
}

/** Initializes `agent` and opens a session in `cwd`; returns its id. */
async function newSession(agent: acp.ClientContext, cwd: string): Promise<string> {
  await initialize(agent);
  const { sessionId } = await agent.request(acp.methods.agent.session.new, {
    cwd,
    mcpServers: [],
  });
  return sessionId;
}

/** `session/prompt` with one text block. */
function promptText(
  agent: acp.ClientContext,
  sessionId: string,
  text: string,
): Promise<acp.PromptResponse> {
  return agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });
}

/** Updates of `kind` for `sessionId`. */
function ofKind<K extends acp.SessionUpdate["sessionUpdate"]>(
  a: Agent,
  kind: K,
): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
  return a.updates.map((n) => n.update).filter((u) => u.sessionUpdate === kind) as Extract<
    acp.SessionUpdate,
    { sessionUpdate: K }
  >[];
}

function text(updates: { content: acp.ContentBlock }[]): string {
  return updates.map((u) => u.content.type === "text" ? u.content.text : "").join("");
}

/** Waits until `check` holds (updates arrive asynchronously). */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `promise`, or a failure when it has not settled after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function withSetup(
  script: FakeStep[] | ((req: RecordedRequest) => FakeStep),
  files: Record<string, string>,
  body: (ctx: { fake: FakeLlm; repo: string; home: string }) => Promise<void>,
  extraToml = "",
): Promise<void> {
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo(files);
  const home = await makeHome(fake.url, extraToml.replaceAll("PLANNER_URL", fake.url));
  try {
    await body({ fake, repo, home });
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("acp: initialize, session/new with modes and commands, a prompt with streamed chunks", async () => {
  await withSetup(
    [{
      reasoning: "The user says hello.",
      text: "Hello from Reasonix, streamed in pieces.",
      chunkBytes: 7,
    }],
    { ".reasonix/commands/review.md": "---\ndescription: Review a file\n---\nReview $1." },
    async ({ fake, repo, home }) => {
      const a = startAgent({ cwd: repo, home, env: { REASONIX_E2E_KEY: "sk-e2e-test" } });
      const init = await initialize(a.agent);
      assert.equal(init.protocolVersion, 1);
      assert.equal(init.agentCapabilities?.loadSession, true);
      assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
      assert.equal(init.agentCapabilities?.promptCapabilities?.embeddedContext, true);
      assert.ok((init.authMethods ?? []).length > 0, "an auth method is described");

      // No `authenticate`: the key is in the environment.
      const created = await a.agent.request(acp.methods.agent.session.new, {
        cwd: repo,
        mcpServers: [],
      });
      assert.equal(created.modes?.currentModeId, "ask");
      assert.deepEqual(
        created.modes?.availableModes.map((m) => m.id),
        ["ask", "accept-edits", "auto", "plan"],
      );
      await until(() => ofKind(a, "available_commands_update").length > 0, "the commands");
      const names = ofKind(a, "available_commands_update")[0].availableCommands.map((c) => c.name);
      assert.deepEqual(names, ["compact", "plan", "review"]);

      const response = await a.agent.request(acp.methods.agent.session.prompt, {
        sessionId: created.sessionId,
        prompt: [
          { type: "text", text: "Say hello." },
          {
            type: "resource",
            resource: {
              uri: pathToFileURL(join(repo, "open.ts")).href,
              mimeType: "text/typescript",
              text: "export const unsaved = 1;",
            },
          },
          { type: "image", data: PNG_BASE64, mimeType: "image/png" },
        ],
      });
      assert.equal(response.stopReason, "end_turn");
      const chunks = ofKind(a, "agent_message_chunk");
      assert.ok(chunks.length > 1, `the answer came in ${chunks.length} chunk(s)`);
      assert.equal(text(chunks), "Hello from Reasonix, streamed in pieces.");
      assert.equal(text(ofKind(a, "agent_thought_chunk")), "The user says hello.");
      assert.ok(a.updates.every((n) => n.sessionId === created.sessionId));

      // The resource's text and the image reached the model with the user's words.
      assert.equal(fake.requests.length, 1);
      const body = fake.requests[0].bodyText;
      assert.match(body, /Say hello\./);
      assert.match(body, /export const unsaved = 1;/);
      assert.ok(body.includes(PNG_BASE64), "the image was sent");

      // Permission modes and plan mode.
      await a.agent.request(acp.methods.agent.session.setMode, {
        sessionId: created.sessionId,
        modeId: "plan",
      });
      await until(
        () => ofKind(a, "current_mode_update").some((u) => u.currentModeId === "plan"),
        "plan mode",
      );
      await a.agent.request(acp.methods.agent.session.setMode, {
        sessionId: created.sessionId,
        modeId: "auto",
      });
      await until(
        () => ofKind(a, "current_mode_update").at(-1)?.currentModeId === "auto",
        "auto mode",
      );
      await assert.rejects(
        a.agent.request(acp.methods.agent.session.setMode, {
          sessionId: created.sessionId,
          modeId: "yolo",
        }),
        /unknown mode "yolo"/,
      );
      const { code } = await a.close();
      assert.equal(code, 0);
    },
    "images = true\n",
  );
});

const EDIT_SCRIPT: FakeStep[] = [
  {
    text: "Changing the note.",
    toolCalls: [fakeToolCall("edit_file", {
      path: "note.txt",
      old_string: "hello",
      new_string: "goodbye",
    }, "call_edit")],
  },
  { text: "Done." },
];

for (const answer of ["once", "deny"] as const) {
  Deno.test(`acp: an edit asks with its diff; answered ${answer}`, async () => {
    await withSetup(EDIT_SCRIPT, { "note.txt": "hello world\n" }, async ({ repo, home }) => {
      const a = startAgent({ cwd: repo, home });
      a.answer = answer;
      const sessionId = await newSession(a.agent, repo);
      const response = await promptText(a.agent, sessionId, "change the note");
      assert.equal(response.stopReason, "end_turn");
      const path = join(repo, "note.txt");
      const diff = { type: "diff", path, oldText: "hello world\n", newText: "goodbye world\n" };

      const [started] = ofKind(a, "tool_call");
      assert.equal(started.toolCallId, "call_edit");
      assert.equal(started.kind, "edit");
      assert.equal(started.title, "Edit note.txt");
      assert.deepEqual(started.locations, [{ path }]);
      assert.deepEqual(started.content, [diff]);

      assert.equal(a.permissions.length, 1);
      const asked = a.permissions[0];
      assert.equal(asked.sessionId, sessionId);
      assert.equal(asked.toolCall.toolCallId, "call_edit");
      assert.deepEqual(asked.toolCall.content, [diff]);
      assert.deepEqual(
        asked.options.map((o) => o.kind),
        ["allow_once", "allow_always", "reject_once"],
      );

      const last = ofKind(a, "tool_call_update").filter((u) => u.toolCallId === "call_edit")
        .at(-1)!;
      const after = await Deno.readTextFile(path);
      if (answer === "once") {
        assert.equal(after, "goodbye world\n");
        assert.equal(last.status, "completed");
        assert.deepEqual(last.content?.[0], diff);
      } else {
        assert.equal(after, "hello world\n");
        assert.equal(last.status, "failed");
        assert.ok(!last.content?.some((c) => c.type === "diff"), "no diff for a refused edit");
      }
      assert.equal(text(ofKind(a, "agent_message_chunk")), "Changing the note.Done.");
      assert.equal((await a.close()).code, 0);
    });
  });
}

Deno.test("acp: session/cancel stops a turn mid-stream with stopReason cancelled", async () => {
  await withSetup(
    [{ hang: "mid-stream", text: "I will take a long time", afterBytes: 600 }, {
      text: "After the cancel.",
    }],
    {},
    async ({ repo, home }) => {
      const a = startAgent({ cwd: repo, home });
      const sessionId = await newSession(a.agent, repo);
      const prompt = promptText(a.agent, sessionId, "take your time");
      await until(() => ofKind(a, "agent_message_chunk").length > 0, "the first chunk");
      await a.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      const response = await within(prompt, 15_000, "the cancelled prompt's answer");
      assert.equal(response.stopReason, "cancelled");

      // The session goes on after a cancel.
      const next = await promptText(a.agent, sessionId, "again");
      assert.equal(next.stopReason, "end_turn");
      assert.match(text(ofKind(a, "agent_message_chunk")), /After the cancel\.$/);
      assert.equal((await a.close()).code, 0);
    },
  );
});

Deno.test("acp: a cancel while a permission request waits withdraws it; nothing is changed", async () => {
  await withSetup(EDIT_SCRIPT, { "note.txt": "hello world\n" }, async ({ repo, home }) => {
    const a = startAgent({ cwd: repo, home });
    a.answer = "hold";
    const sessionId = await newSession(a.agent, repo);
    const prompt = promptText(a.agent, sessionId, "change the note");
    await until(() => a.permissions.length === 1, "the permission request");
    await a.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    const response = await within(prompt, 15_000, "the cancelled prompt's answer");
    assert.equal(response.stopReason, "cancelled");
    await until(() => a.withdrawn === 1, "the request to be withdrawn");
    assert.equal(await Deno.readTextFile(join(repo, "note.txt")), "hello world\n");
    assert.equal((await a.close()).code, 0);
  });
});

Deno.test("acp: a turn that fails answers the prompt with an error", async () => {
  await withSetup(
    [{ status: 400, body: { error: { message: "model fake-model does not exist" } } }],
    {},
    async ({ repo, home }) => {
      const a = startAgent({ cwd: repo, home });
      const sessionId = await newSession(a.agent, repo);
      await assert.rejects(
        promptText(a.agent, sessionId, "hi"),
        (error: acp.RequestError) => {
          assert.equal(error.code, -32603);
          assert.match(error.message, /does not exist/);
          return true;
        },
      );
      assert.equal((await a.close()).code, 0);
    },
  );
});

Deno.test("acp: session/load replays an earlier session's messages, then continues it", async () => {
  await withSetup(
    [
      {
        reasoning: "Listing first.",
        text: "Let me look.",
        toolCalls: [fakeToolCall("ls", {}, "call_ls")],
      },
      { text: "I will remember the banana." },
      { text: "You said banana." },
    ],
    { "a.txt": "a\n" },
    async ({ fake, repo, home }) => {
      const first = startAgent({ cwd: repo, home });
      const sessionId = await newSession(first.agent, repo);
      await promptText(first.agent, sessionId, "remember: banana");
      assert.equal((await first.close()).code, 0);

      const second = startAgent({ cwd: repo, home });
      await initialize(second.agent);
      const listed = await second.agent.request(acp.methods.agent.session.list, { cwd: repo });
      assert.ok(listed.sessions.some((s) => s.sessionId === sessionId), "the session is listed");
      const loaded = await second.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: repo,
        mcpServers: [],
      });
      assert.equal(loaded.modes?.currentModeId, "ask");
      // The replay arrived before the answer.
      const replay = second.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update)
        .filter((u) => u.sessionUpdate !== "available_commands_update");
      assert.deepEqual(
        replay.map((u) => u.sessionUpdate),
        [
          "user_message_chunk",
          "agent_thought_chunk",
          "agent_message_chunk",
          "tool_call",
          "tool_call_update",
          "agent_message_chunk",
        ],
      );
      assert.equal(text([replay[0] as { content: acp.ContentBlock }]), "remember: banana");
      assert.equal(
        text([replay[5] as { content: acp.ContentBlock }]),
        "I will remember the banana.",
      );
      const tool = replay[3] as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>;
      assert.equal(tool.toolCallId, "call_ls");
      assert.equal(tool.kind, "search");
      assert.equal(
        (replay[4] as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call_update" }>).status,
        "completed",
      );

      const response = await promptText(second.agent, sessionId, "what did I say?");
      assert.equal(response.stopReason, "end_turn");
      // The continued session sent the earlier conversation to the model.
      assert.match(fake.requests.at(-1)!.bodyText, /remember: banana[\s\S]*what did I say\?/);
      assert.equal((await second.close()).code, 0);
    },
  );
});

const PLAN = "## Plan for b.txt\n\n1. Create **b.txt** with one line.\n2. Say what was done.";

/** Writes, hands the plan in when plan mode refuses, writes once approved. */
function planScript(req: RecordedRequest): FakeStep {
  const last = (req.body as { messages: { role: string; content: string }[] }).messages.at(-1)!;
  const write = fakeToolCall("write_file", { path: "b.txt", content: "b\n" }, "call_write");
  if (last.role === "user") return { toolCalls: [{ ...write, id: "call_write_1" }] };
  if (last.content.startsWith("Plan mode is on")) {
    return {
      toolCalls: [fakeToolCall("use_capability", {
        capability: "exit_plan_mode",
        arguments: { plan: PLAN },
      }, "call_exit")],
    };
  }
  if (last.content.startsWith("The user approved")) {
    return { toolCalls: [{ ...write, id: "call_write_2" }] };
  }
  return { text: "Finished." };
}

Deno.test("acp: plan mode sends the plan as entries and asks to approve it", async () => {
  await withSetup(planScript, { "a.txt": "a\n" }, async ({ repo, home }) => {
    const a = startAgent({ cwd: repo, home });
    const sessionId = await newSession(a.agent, repo);
    await a.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    const response = await promptText(a.agent, sessionId, "create b.txt");
    assert.equal(response.stopReason, "end_turn");
    const updates = ofKind(a, "tool_call_update");
    assert.equal(
      updates.filter((u) => u.toolCallId === "call_write_1").at(-1)?.status,
      "failed",
      "plan mode refused the first write",
    );
    assert.deepEqual(ofKind(a, "plan").at(-1)?.entries, [
      { content: "Create **b.txt** with one line.", priority: "medium", status: "pending" },
      { content: "Say what was done.", priority: "medium", status: "pending" },
    ]);
    const asked = a.permissions.find((p) => p.toolCall.kind === "switch_mode");
    assert.ok(asked, "the plan's approval was asked");
    assert.deepEqual(asked.options.map((o) => o.kind), ["allow_once", "reject_once"]);
    assert.equal(
      ofKind(a, "tool_call").find((c) => c.toolCallId === "call_exit")?.kind,
      "switch_mode",
    );
    // Approving the plan ended plan mode, and the write went ahead.
    assert.equal(ofKind(a, "current_mode_update").at(-1)?.currentModeId, "ask");
    assert.equal(await Deno.readTextFile(join(repo, "b.txt")), "b\n");
    assert.equal((await a.close()).code, 0);
  });
});

Deno.test("acp: a planner's plan arrives as a plan update before the executor answers", async () => {
  const plan = {
    title: "Fix login",
    summary: "Trim the password before hashing it.",
    steps: [{ title: "Edit src/auth.ts" }, { title: "Run the tests" }],
  };
  const script = (req: RecordedRequest): FakeStep =>
    (req.body as { model: string }).model === "plan-model"
      ? {
        text: "Reading the auth code.",
        toolCalls: [fakeToolCall("submit_plan", plan, "call_plan")],
      }
      : { text: "Carried out the plan." };
  await withSetup(
    script,
    { "src/auth.ts": "export const x = 1;\n" },
    async ({ repo, home }) => {
      const a = startAgent({ cwd: repo, home });
      const sessionId = await newSession(a.agent, repo);
      const response = await promptText(a.agent, sessionId, "fix the login bug, plan first");
      assert.equal(response.stopReason, "end_turn");
      const entries = ofKind(a, "plan")[0]?.entries.map((e) => e.content) ?? [];
      assert.ok(
        entries.some((e) => e.includes("Edit src/auth.ts")) &&
          entries.some((e) => e.includes("Run the tests")),
        `the plan's steps are entries: ${JSON.stringify(entries)}`,
      );
      // The planner's prose is reasoning; the executor's is the answer.
      assert.match(text(ofKind(a, "agent_thought_chunk")), /Reading the auth code\./);
      assert.equal(text(ofKind(a, "agent_message_chunk")), "Carried out the plan.");
      const order = a.updates.map((n) => n.update.sessionUpdate);
      assert.ok(order.indexOf("plan") < order.indexOf("agent_message_chunk"));
      assert.equal((await a.close()).code, 0);
    },
    `
[agent]
planner_model = "plan/plan-model"

[[providers]]
name = "plan"
kind = "openai"
base_url = "PLANNER_URL"
models = ["plan-model"]
api_key_env = "REASONIX_E2E_KEY"
context_window = 128000
`,
  );
});

Deno.test("acp: without a provider key, session/new asks the client to authenticate", async () => {
  await withSetup([], {}, async ({ repo, home }) => {
    const a = startAgent({ cwd: repo, home, env: { REASONIX_E2E_KEY: "" } });
    await initialize(a.agent);
    await assert.rejects(
      a.agent.request(acp.methods.agent.session.new, { cwd: repo, mcpServers: [] }),
      (error: acp.RequestError) => {
        assert.equal(error.code, -32000);
        assert.match(error.message, /REASONIX_E2E_KEY is not set/);
        return true;
      },
    );
    assert.equal((await a.close()).code, 0);
  });
});
