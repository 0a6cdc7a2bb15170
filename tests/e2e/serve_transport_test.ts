/**
 * `reasonix serve` over HTTP with the real host and the fake LLM: the event stream resumes by
 * id without loss or duplication, two tabs see the same stream, a turn outlives its tab,
 * approvals are answered from the browser with the edit's diff, a turn can be cancelled, and
 * sessions, models and modes switch on the same host.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  events,
  login,
  post,
  readEvents,
  type SseFrame,
  startServeLab,
  state,
} from "./serve_support.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };

const idle = (f: SseFrame) => f.data.type === "idle";

Deno.test(
  "two tabs see one stream; a reconnect resumes with nothing lost or doubled",
  opts,
  async () => {
    const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    const lab = await startServeLab({ script: [{ text: long, delayMs: 15, chunkBytes: 40 }] });
    try {
      const who = await login(lab);
      const s = await state(lab, who);
      const id = s.info.sessionId;
      const tabA = await events(lab, who, id, s.after);
      const tabB = await events(lab, who, id, s.after);
      assert.equal((await post(lab, "/api/turn", { text: "go", sessionId: id }, who)).status, 202);
      // Tab C reads a few events, drops, and comes back with its last id.
      const tabC = await events(lab, who, id, s.after);
      const firstPart = await readEvents(
        tabC,
        (_f, all) => all.filter((x) => x.data.type === "text").length >= 3,
      );
      const rest = await readEvents(await events(lab, who, id, firstPart.at(-1)!.id, true), idle);
      const [a, b] = await Promise.all([readEvents(tabA, idle), readEvents(tabB, idle)]);
      const ids = (fs: SseFrame[]) => fs.map((f) => f.id);
      assert.deepEqual(ids(a), ids(b), "both tabs saw the same events");
      assert.deepEqual(
        [...ids(firstPart), ...ids(rest)],
        ids(a),
        "resumed exactly after its last id",
      );
      const numbers = ids(a).map((x) => Number(x!.split("-")[1]));
      assert.deepEqual(numbers, numbers.map((_, i) => numbers[0] + i), "ids increase by one");
      const text = (fs: SseFrame[]) =>
        fs.filter((f) => f.data.type === "text").map((f) => f.data.text).join("");
      assert.equal(text(a), long);
      assert.equal(text([...firstPart, ...rest]), long);
      assert.deepEqual(
        a.map((f) => f.data.type).filter((t) => t === "user" || t === "done" || t === "idle"),
        ["user", "done", "idle"],
      );
      // A page loaded now gets the stored conversation and starts after it.
      const after = await state(lab, who);
      assert.equal(after.running, false);
      assert.deepEqual(after.items.map((i: { kind: string }) => i.kind), ["user", "assistant"]);
      assert.equal(after.after, a.at(-1)!.id);
      // Closed tabs leave no subscriber behind.
      const ring = lab.serve.app.ring(id);
      for (let i = 0; i < 50 && ring.subscribers > 0; i++) {
        await new Promise((r) => setTimeout(r, 40));
      }
      assert.equal(ring.subscribers, 0);
    } finally {
      await lab.close();
    }
  },
);

Deno.test(
  "a turn keeps running with no tab open; a page loaded mid-turn misses nothing",
  opts,
  async () => {
    const lab = await startServeLab({
      script: [{ text: "one two three four five six seven eight", delayMs: 60, chunkBytes: 30 }],
    });
    try {
      const who = await login(lab);
      const s = await state(lab, who);
      const tab = await events(lab, who, s.info.sessionId, s.after);
      assert.equal(
        (await post(lab, "/api/turn", { text: "go", sessionId: s.info.sessionId }, who)).status,
        202,
      );
      await readEvents(tab, (f) => f.data.type === "text"); // then the tab closes
      const mid = await state(lab, who);
      assert.equal(mid.running, true);
      assert.deepEqual(mid.items, [], "mid-turn the page gets the conversation before the turn");
      assert.equal(mid.after, s.after);
      const replay = await readEvents(await events(lab, who, s.info.sessionId, mid.after), idle);
      assert.equal(replay[0].data.type, "user");
      assert.equal(
        replay.filter((f) => f.data.type === "text").map((f) => f.data.text).join(""),
        "one two three four five six seven eight",
      );
      assert.equal(replay.find((f) => f.data.type === "done")?.data.status, "completed");
    } finally {
      await lab.close();
    }
  },
);

Deno.test(
  "an edit is approved from the browser with its diff; deny and cancel work",
  opts,
  async () => {
    const lab = await startServeLab({
      files: { "notes.txt": "alpha\nbeta\n" },
      script: [
        {
          text: "Editing.",
          toolCalls: [{
            name: "edit_file",
            arguments: JSON.stringify({
              path: "notes.txt",
              old_string: "beta",
              new_string: "gamma",
            }),
          }],
        },
        { text: "Edited." },
        {
          toolCalls: [{
            name: "edit_file",
            arguments: JSON.stringify({
              path: "notes.txt",
              old_string: "alpha",
              new_string: "omega",
            }),
          }],
        },
        { text: "Refused, fine." },
        { hang: "mid-stream", text: "thinking very slowly" },
      ],
    });
    try {
      const who = await login(lab);
      const s = await state(lab, who);
      const id = s.info.sessionId;
      let after = s.after;
      const turnUntilApproval = async (text: string) => {
        const tab = await events(lab, who, id, after);
        assert.equal((await post(lab, "/api/turn", { text, sessionId: id }, who)).status, 202);
        return { tab, frames: await readEvents(tab, (f) => f.data.type === "approval_request") };
      };
      // Allow once: the diff was shown, the file changed.
      let { frames } = await turnUntilApproval("edit it");
      const ask = frames.at(-1)!.data;
      assert.equal(ask.request.tool, "edit_file");
      assert.match(ask.preview.diff, /-beta/);
      assert.match(ask.preview.diff, /\+gamma/);
      assert.equal(
        (await post(lab, "/api/turn", { text: "again", sessionId: id }, who)).status,
        409,
        "one turn at a time",
      );
      assert.equal(
        (await post(lab, "/api/approve", { id: ask.request.id, choice: "maybe" }, who)).status,
        400,
      );
      assert.equal(
        (await post(lab, "/api/approve", { id: "nope", choice: "once" }, who)).status,
        404,
      );
      assert.equal(
        (await post(lab, "/api/approve", { id: ask.request.id, choice: "once" }, who)).status,
        200,
      );
      let rest = await readEvents(await events(lab, who, id, frames.at(-1)!.id), idle);
      assert.ok(rest.some((f) => f.data.type === "approval_settled" && f.data.choice === "once"));
      assert.equal(rest.find((f) => f.data.type === "tool_end")?.data.result.isError, undefined);
      assert.equal(await Deno.readTextFile(join(lab.repo, "notes.txt")), "alpha\ngamma\n");
      after = rest.at(-1)!.id!;
      // Deny: the file stays.
      ({ frames } = await turnUntilApproval("edit more"));
      await post(lab, "/api/approve", { id: frames.at(-1)!.data.request.id, choice: "deny" }, who);
      rest = await readEvents(await events(lab, who, id, frames.at(-1)!.id), idle);
      assert.equal(rest.find((f) => f.data.type === "tool_end")?.data.result.isError, true);
      assert.equal(await Deno.readTextFile(join(lab.repo, "notes.txt")), "alpha\ngamma\n");
      after = rest.at(-1)!.id!;
      // Cancel a turn whose model hangs.
      const tab = await events(lab, who, id, after);
      await post(lab, "/api/turn", { text: "slow", sessionId: id }, who);
      const started = await readEvents(tab, (f) => f.data.type === "request_start");
      assert.equal((await (await post(lab, "/api/cancel", {}, who)).json()).cancelled, true);
      const end = await readEvents(await events(lab, who, id, started.at(-1)!.id), idle);
      assert.equal(end.find((f) => f.data.type === "done")?.data.status, "cancelled");
      assert.equal((await state(lab, who)).running, false);
    } finally {
      await lab.close();
    }
  },
);

Deno.test("sessions, models and modes switch on the same host", opts, async () => {
  const lab = await startServeLab({
    script: [{ text: "first answer" }, { text: "second answer" }],
    toml:
      '\n[[providers]]\nname = "other"\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["other-model"]\napi_key_env = "REASONIX_E2E_KEY"\ncontext_window = 64000\n',
  });
  try {
    const who = await login(lab);
    const first = await state(lab, who);
    const tab = await events(lab, who, first.info.sessionId, first.after);
    await post(lab, "/api/turn", { text: "hello one", sessionId: first.info.sessionId }, who);
    await readEvents(tab, idle);
    // New session: the old stream says where the server went.
    const oldTab = await events(lab, who, first.info.sessionId, (await state(lab, who)).after);
    const made = await (await post(lab, "/api/sessions/new", {}, who)).json();
    assert.notEqual(made.sessionId, first.info.sessionId);
    const [switched] = await readEvents(oldTab, () => true);
    assert.deepEqual(switched.data, { type: "session_switched", sessionId: made.sessionId });
    assert.equal(
      (await post(lab, "/api/turn", { text: "x", sessionId: first.info.sessionId }, who)).status,
      409,
      "a stale session",
    );
    const second = await state(lab, who);
    assert.deepEqual(second.items, []);
    const list =
      await (await fetch(`${lab.origin}/api/sessions`, { headers: { cookie: who.cookie } })).json();
    assert.ok(list.some((x: { id: string }) => x.id === first.info.sessionId));
    // Resume the first one: its conversation comes back.
    assert.equal(
      (await post(lab, "/api/sessions/resume", { id: first.info.sessionId }, who)).status,
      200,
    );
    const back = await state(lab, who);
    assert.equal(back.info.sessionId, first.info.sessionId);
    assert.deepEqual(back.items.map((i: { text?: string }) => i.text), [
      "hello one",
      "first answer",
    ]);
    // Model picker and permission mode.
    const models =
      await (await fetch(`${lab.origin}/api/models`, { headers: { cookie: who.cookie } })).json();
    assert.ok(models.some((m: { name: string }) => m.name === "other/other-model"));
    const changed = await (await post(lab, "/api/model", { name: "other/other-model" }, who))
      .json();
    assert.equal(changed.info.model, "other/other-model");
    assert.equal(changed.info.sessionId, first.info.sessionId, "the same session on another model");
    const mode = await (await post(lab, "/api/mode", { mode: "accept-edits" }, who)).json();
    assert.equal(mode.info.mode, "accept-edits");
    // Slash commands go through the same entry.
    const help = await events(lab, who, back.info.sessionId, (await state(lab, who)).after);
    await post(lab, "/api/turn", { text: "/permissions ask", sessionId: back.info.sessionId }, who);
    const [info] = await readEvents(help, () => true);
    assert.equal(info.data.type, "info");
    assert.equal(info.data.info.mode, "ask");
  } finally {
    await lab.close();
  }
});
