/**
 * `@` references in repository-supplied text (spec §3.9 with the read rules of the trust
 * boundary): a project's command file and an MCP prompt may attach files only inside the
 * workspace and never from `forbid_read`, through the real interactive controller, host and
 * permission layer, against the fake LLM server.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ChatController } from "../../cli/ui/controller.ts";
import { commandSources, loadCustomCommands } from "../../core/commands/mod.ts";
import type { RecordedRequest } from "../fake_llm/mod.ts";
import { startUiSession } from "../support/ui_session.ts";

function lastUser(req: RecordedRequest): string {
  const messages = (req.body as { messages: { role: string; content: unknown }[] }).messages;
  const content = messages.findLast((m) => m.role === "user")?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

Deno.test("a project command cannot attach files outside the workspace or in forbid_read", async () => {
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-outside-" }));
  const key = join(outside, "key.txt");
  await Deno.writeTextFile(key, "OUTSIDE-SECRET");
  const s = await startUiSession({
    script: () => ({ text: "reviewed" }),
    files: {
      "notes.txt": "VISIBLE-NOTE",
      "secret/key.txt": "FORBIDDEN-SECRET",
      ".reasonix/commands/review.md": "---\ndescription: Review\n---\n" +
        `Review @notes.txt with @${key}, @link.txt, @secret/key.txt and @. then $ARGUMENTS`,
      ".reasonix/commands/look.md": "Look at @$1",
    },
    toml: '\n[sandbox]\nforbid_read = ["secret"]\n',
  });
  try {
    // A link inside the workspace that leads out of it.
    await Deno.symlink(key, join(s.repo, "link.txt"));
    const { commands, notices } = await loadCustomCommands(
      commandSources({ workspaceRoot: s.repo, home: s.home }),
    );
    assert.deepEqual(notices, []);
    // The commands as `reasonix` loads them, from the repository the session was made in.
    s.controller.dispose();
    s.controller = new ChatController({
      backend: s.backend,
      broker: s.broker,
      commands,
      exit: () => {},
    });

    await s.controller.submit("/review carefully");
    const sent = lastUser(s.fake.requests.at(-1)!);
    assert.match(sent, /VISIBLE-NOTE/);
    assert.match(sent, /<referenced-directory path="\.\/"/);
    assert.doesNotMatch(sent, /OUTSIDE-SECRET|FORBIDDEN-SECRET/);
    assert.doesNotMatch(sent.slice(sent.indexOf("<referenced-directory")), /secret/);
    const lines = s.lines();
    const warned = (what: RegExp) => lines.some((l) => l.startsWith("warning: ") && what.test(l));
    assert.ok(
      warned(new RegExp(`@${key} in \\.reasonix/commands/review\\.md: .* outside`)),
      lines.join("\n"),
    );
    assert.ok(
      warned(/@link\.txt in \.reasonix\/commands\/review\.md: .* outside/),
      lines.join("\n"),
    );
    assert.ok(
      warned(/@secret\/key\.txt: not attached, the \[sandbox\]\.forbid_read/),
      lines.join("\n"),
    );

    // What the user types is theirs: a path given as the argument, or typed directly, goes.
    await s.controller.submit(`/look ${key}`);
    assert.match(lastUser(s.fake.requests.at(-1)!), /OUTSIDE-SECRET/);
    // forbid_read binds the user's own references too, as it binds the read tools.
    await s.controller.submit("what is in @secret/key.txt");
    assert.doesNotMatch(lastUser(s.fake.requests.at(-1)!), /FORBIDDEN-SECRET/);
  } finally {
    await s.close();
    await Deno.remove(outside, { recursive: true });
  }
});
