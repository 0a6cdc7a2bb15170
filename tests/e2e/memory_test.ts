/**
 * Memory and project instructions through the real CLI: instruction files and recalled facts
 * ride the user turn, a project fact is saved headless without asking, anything else fails
 * closed, and the tool list and system prompt never change.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FactStore } from "../../core/memory/facts.ts";
import { projectKey } from "../../core/store/sessions.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

interface Body {
  messages: { role: string; content: string | null }[];
  tools: unknown[];
}

Deno.test("instructions and recalled memory ride the user turn; facts are saved as the rules say", async () => {
  const fake = await startFakeLlm({
    script: [
      {
        toolCalls: [
          {
            name: "remember",
            arguments: JSON.stringify({
              text: "The parser tests need the fixtures in tests/data",
              type: "project",
              scope: "project",
            }),
          },
          {
            name: "remember",
            arguments: JSON.stringify({
              text: "The user likes terse answers",
              type: "user",
              scope: "global",
            }),
          },
        ],
      },
      { text: "Noted." },
      { text: "Second run." },
    ],
  });
  const repo = await makeRepo({ "AGENTS.md": "Always run the parser tests after edits." });
  const home = await makeHome(fake.url);
  try {
    const key = await projectKey(await Deno.realPath(repo));
    const store = new FactStore({
      projectDir: join(home, "memory", "projects", key),
      globalDir: join(home, "memory", "global"),
    });
    await store.create({
      text: "Parser failures usually come from stale fixtures",
      type: "project",
      scope: "project",
    });

    const first = await runReasonix(["run", "why does the parser test fail"], { cwd: repo, home });
    // One `remember` needed an approver: the run finished, with that action refused.
    assert.equal(first.code, 3, first.stderr);
    const body = fake.requests[0].body as Body;
    const user = body.messages[1].content!;
    assert.match(
      user,
      /<project-instructions file="AGENTS.md">\nAlways run the parser tests after edits\.\n/,
    );
    assert.match(
      user,
      /why does the parser test fail\n\n<recalled-memory [^>]*>\n- \[f_\w+ r1 project\/project .*stale fixtures/,
    );

    // The project fact was saved without asking; the global user fact needed approval and
    // `reasonix run` cannot ask, so it failed closed with a way to allow it.
    const results = (fake.requests[1].body as Body).messages.filter((m) => m.role === "tool");
    assert.match(results[0].content!, /^Remembered f_\w+ \(revision 1, project\/project\)/);
    assert.match(results[1].content!, /Memory/);
    assert.match(results[1].content!, /--allow|--permission-mode/);
    const facts = await store.list();
    assert.deepEqual(facts.map((f) => f.text).sort(), [
      "Parser failures usually come from stale fixtures",
      "The parser tests need the fixtures in tests/data",
    ]);

    // A new session: instructions again (new session), the new fact recalled, same tools.
    const second = await runReasonix(["run", "the parser fixtures look wrong"], {
      cwd: repo,
      home,
    });
    assert.equal(second.code, 0, second.stderr);
    const next = fake.requests[2].body as Body;
    assert.match(next.messages[1].content!, /tests\/data/);
    assert.deepEqual(next.tools, body.tools);
    assert.equal(next.messages[0].content, body.messages[0].content);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
