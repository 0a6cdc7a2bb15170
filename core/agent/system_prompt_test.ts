import assert from "node:assert/strict";
import { decorateUserTurn, type EnvironmentFacts, SYSTEM_PROMPT } from "./system_prompt.ts";

const facts: EnvironmentFacts = {
  workspaceRoot: "/work/repo",
  platform: "linux x86_64",
  date: "2026-11-30",
  isGitRepo: true,
};

Deno.test("the system prompt holds no volatile facts", () => {
  assert.doesNotMatch(SYSTEM_PROMPT, /\d{4}-\d{2}-\d{2}/);
  assert.doesNotMatch(SYSTEM_PROMPT, /\/work|\/home|\/Users/);
});

Deno.test("the first user turn carries the environment block", () => {
  const text = decorateUserTurn("fix it", [], facts);
  assert.equal(
    text,
    "<environment>\nworkspace_root: /work/repo\nplatform: linux x86_64\ndate: 2026-11-30\n" +
      "git_repository: yes\n</environment>\n\nfix it",
  );
});

Deno.test("later user turns are plain unless the date changed", () => {
  const history = [{ role: "user", content: decorateUserTurn("a", [], facts) }];
  assert.equal(decorateUserTurn("b", history, facts), "b");
  const tomorrow = { ...facts, date: "2026-12-01" };
  const c = decorateUserTurn("c", history, tomorrow);
  assert.equal(c, "c\n\n<date>2026-12-01</date>");
  assert.equal(decorateUserTurn("d", [...history, { role: "user", content: c }], tomorrow), "d");
});
