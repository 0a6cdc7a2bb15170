import assert from "node:assert/strict";
import { join } from "node:path";
import { findProfile, PROFILE_KEYS, profileFromSkill } from "./profile.ts";

const RICH = `---
name: reviewer
description: Reviews a diff
runAs: subagent
model: deepseek/deepseek-v4-pro
effort: high
read-only: true
allowed-tools: read_file, grep glob
max_turns: 99
write_paths: /
retries: 5
triggers: review, pr
auto-use: true
---
You review diffs. Report problems with path:line.
`;

Deno.test("narrowing keeps capability bounds and drops per-run values and routing metadata", () => {
  const profile = profileFromSkill(RICH, "reviewer");
  assert.deepEqual(profile, {
    name: "reviewer",
    description: "Reviews a diff",
    prompt: "You review diffs. Report problems with path:line.",
    model: "deepseek/deepseek-v4-pro",
    effort: "high",
    readOnly: true,
    allowedTools: ["read_file", "grep", "glob"],
  });
});

Deno.test("nothing outside the profile keys can ever reach a profile", () => {
  // Every key of a skill, real and invented, as frontmatter: only PROFILE_KEYS may show.
  const keys = ["max_turns", "write_paths", "retries", "verification", "triggers", "cost", "x-y"];
  const text = `---\nrunAs: subagent\n${keys.map((k) => `${k}: 1`).join("\n")}\n---\nBody.`;
  const profile = profileFromSkill(text, "p")!;
  const reached = Object.keys(profile);
  assert.deepEqual(reached.sort(), ["description", "name", "prompt"]);
  // The profile fields map one to one onto the allowed frontmatter keys.
  assert.deepEqual(PROFILE_KEYS, [
    "name",
    "description",
    "model",
    "effort",
    "read-only",
    "allowed-tools",
  ]);
});

Deno.test("Claude Code tool names in allowed-tools map to Reasonix's", () => {
  const text = "---\nrunAs: subagent\nallowed-tools: Read, Grep, Bash(git log:*), ls\n---\nBody.";
  assert.deepEqual(profileFromSkill(text, "p")?.allowedTools, ["read_file", "grep", "bash", "ls"]);
});

Deno.test("a skill that is not a subagent profile, or has no body, is no profile", () => {
  assert.equal(profileFromSkill("---\nname: x\n---\nBody", "x"), undefined);
  assert.equal(profileFromSkill("---\nrunAs: subagent\n---\n", "x"), undefined);
  assert.equal(
    profileFromSkill("---\nrunAs: subagent\nname: ../../etc\n---\nBody", "x"),
    undefined,
  );
});

Deno.test("profiles are found in the project first, then the user's skills", async () => {
  const root = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  try {
    const write = async (dir: string, body: string) => {
      await Deno.mkdir(join(dir, "rev"), { recursive: true });
      await Deno.writeTextFile(join(dir, "rev", "SKILL.md"), `---\nrunAs: subagent\n---\n${body}`);
    };
    await write(join(home, "skills"), "user");
    assert.equal((await findProfile("rev", { root, home }))?.prompt, "user");
    await write(join(root, ".claude", "skills"), "claude");
    assert.equal((await findProfile("rev", { root, home }))?.prompt, "claude");
    await write(join(root, ".reasonix", "skills"), "project");
    assert.equal((await findProfile("rev", { root, home }))?.prompt, "project");
    assert.equal(await findProfile("../rev", { root, home }), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
