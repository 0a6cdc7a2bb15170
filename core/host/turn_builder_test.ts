import assert from "node:assert/strict";
import { join } from "node:path";
import { Session } from "../agent/session.ts";
import { localDate, TurnBuilder } from "./turn_builder.ts";

const signal = new AbortController().signal;

async function workspace(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-turn-" }));
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(join(root, name), text);
  }
  return root;
}

Deno.test("the local date is read every turn and rides the user message when it changes", async () => {
  const root = await workspace({});
  try {
    let now = new Date(2026, 2, 1, 23, 59);
    let reads = 0;
    const turns = new TurnBuilder({
      workspaceRoot: root,
      platform: "linux x86_64",
      isGitRepo: false,
      now: () => (reads++, now),
    });
    const session = new Session();
    const first = await turns.build({ text: "hello" }, session, { signal });
    assert.match(
      first.content,
      /<environment>[\s\S]*\ndate: 2026-03-01 \(UTC[+-]\d{2}:\d{2}\)\n[\s\S]*<\/environment>\n\nhello$/,
    );
    session.append({ role: "user", content: first.content });
    session.append({ role: "assistant", content: "hi" });

    const same = await turns.build({ text: "again" }, session, { signal });
    assert.equal(same.content, "again", "nothing volatile repeats while the date stands");
    session.append({ role: "user", content: same.content });
    session.append({ role: "assistant", content: "ok" });
    const before = session.messages.map((m) => m.content);

    now = new Date(2026, 2, 2, 0, 1);
    const next = await turns.build({ text: "later" }, session, { signal });
    assert.equal(next.content, `later\n\n<date>${localDate(now)}</date>`, "a suffix of this turn");
    assert.match(localDate(now), /^2026-03-02 \(UTC[+-]\d{2}:\d{2}\)$/);
    assert.deepEqual(session.messages.map((m) => m.content), before, "earlier turns untouched");
    assert.ok(reads >= 3, "the clock is read before every user turn");
    session.append({ role: "user", content: next.content });
    session.append({ role: "assistant", content: "ok" });
    const after = await turns.build({ text: "more" }, session, { signal });
    assert.equal(after.content, "more", "the new day is told once");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("@ references are attached, with a notice, and can be turned off", async () => {
  const root = await workspace({ "notes.md": "the secret sauce is ketchup\n" });
  try {
    const on = new TurnBuilder({ workspaceRoot: root, platform: "p", isGitRepo: false });
    const turn = await on.build({ text: "summarize @notes.md and @missing.md" }, new Session(), {
      signal,
    });
    assert.match(turn.content, /summarize @notes\.md and @missing\.md/);
    assert.match(turn.content, /the secret sauce is ketchup/);
    const attached = (turn.events ?? []).flatMap((e) => e.type === "attachments" ? e.labels : []);
    assert.ok(attached.some((l) => /notes\.md/.test(l)), attached.join("\n"));

    const off = new TurnBuilder({
      workspaceRoot: root,
      platform: "p",
      isGitRepo: false,
      references: false,
    });
    const plain = await off.build({ text: "summarize @notes.md" }, new Session(), { signal });
    assert.doesNotMatch(plain.content, /ketchup/);
    assert.deepEqual(plain.events, []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("images pass through when no vision handling is configured", async () => {
  const root = await workspace({});
  try {
    const turns = new TurnBuilder({ workspaceRoot: root, platform: "p", isGitRepo: false });
    const image = { mediaType: "image/png" as const, data: "iVBORw0KGgo=" };
    const turn = await turns.build({ text: "look", images: [image] }, new Session(), { signal });
    assert.deepEqual(turn.images, [image]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
