import assert from "node:assert/strict";
import { INTERRUPTED_RESULT, openSession, SessionNotFoundError } from "./session_store.ts";
import { listSessions } from "./sessions.ts";
import { readTranscript } from "./transcript.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-sessions-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a new session writes every appended message durably", async () => {
  await withDir(async (dir) => {
    const opened = await openSession({ dir, workspace: "/w", model: "p/m" });
    opened.session.append({ role: "user", content: "fix it" });
    // Read back while the writer is still open: nothing waits for close.
    const loaded = await readTranscript(opened.writer.path);
    assert.deepEqual(loaded?.messages, [{ role: "user", content: "fix it" }]);
    opened.writer.close();
  });
});

Deno.test("--continue resumes the newest session and repairs interrupted tool calls", async () => {
  await withDir(async (dir) => {
    const older = await openSession({ dir, workspace: "/w", model: "p/m" });
    older.session.append({ role: "user", content: "old" });
    older.writer.close();
    await new Promise((r) => setTimeout(r, 20));
    const newer = await openSession({ dir, workspace: "/w", model: "p/m" });
    newer.session.append({ role: "user", content: "<environment>\nx\n</environment>\n\nnew task" });
    newer.session.append({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "c1", name: "bash", arguments: '{"command":"sleep 100"}' }],
    });
    newer.writer.close(); // the process died while the tool ran

    const resumed = await openSession({ dir, workspace: "/w", model: "p/m", resume: "latest" });
    assert.equal(resumed.session.id, newer.session.id);
    assert.equal(resumed.repaired, 1);
    const last = resumed.session.messages.at(-1)!;
    assert.deepEqual([last.role, last.toolCallId, last.content], [
      "tool",
      "c1",
      INTERRUPTED_RESULT,
    ]);
    assert.deepEqual(resumed.session.unansweredToolCalls(), []);
    resumed.writer.close();
    // The repair itself was persisted.
    assert.equal((await readTranscript(resumed.writer.path))?.messages.length, 3);
    const listed = await listSessions(dir);
    assert.equal(listed[0].title, "new task");
  });
});

Deno.test("--resume finds a session by id prefix and reports unknown or ambiguous ids", async () => {
  await withDir(async (dir) => {
    const a = await openSession({ dir, workspace: "/w", model: "p/m" });
    a.writer.close();
    const resumed = await openSession({
      dir,
      workspace: "/w",
      model: "p/m",
      resume: a.session.id.slice(0, 6),
    });
    assert.equal(resumed.session.id, a.session.id);
    resumed.writer.close();
    await assert.rejects(
      () => openSession({ dir, workspace: "/w", model: "p/m", resume: "zzzz" }),
      SessionNotFoundError,
    );
    const b = await openSession({ dir, workspace: "/w", model: "p/m" });
    b.writer.close();
    // A third session whose id shares a's first characters makes that prefix ambiguous.
    const twinId = `${a.session.id.slice(0, 4)}ffff-twin`;
    const twin = (await Deno.readTextFile(b.writer.path)).replaceAll(b.session.id, twinId);
    await Deno.writeTextFile(`${dir}/${twinId}.jsonl`, twin);
    await assert.rejects(
      () => openSession({ dir, workspace: "/w", model: "p/m", resume: a.session.id.slice(0, 4) }),
      /several sessions/,
    );
    await assert.rejects(
      () => openSession({ dir, workspace: "/w", model: "p/m", resume: " " }),
      /--resume needs a session id/,
    );
  });
});

Deno.test("--continue with no session says so", async () => {
  await withDir(async (dir) => {
    await assert.rejects(
      () => openSession({ dir, workspace: "/w", model: "p/m", resume: "latest" }),
      /no session to continue/,
    );
  });
});

Deno.test("a session written by a newer Reasonix is not resumed or appended to", async () => {
  await withDir(async (dir) => {
    const opened = await openSession({ dir, workspace: "/w", model: "p/m" });
    opened.session.append({ role: "user", content: "hi" });
    opened.writer.close();
    const path = opened.writer.path;
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(path, text.replace('"v":1', '"v":99'));
    const before = await Deno.readTextFile(path);
    await assert.rejects(
      () => openSession({ dir, workspace: "/w", model: "p/m", resume: "latest" }),
      (e: unknown) =>
        e instanceof SessionNotFoundError && /written by a newer Reasonix \(transcript format v99/
          .test(e.message),
    );
    assert.equal(await Deno.readTextFile(path), before, "the newer transcript is untouched");
  });
});
