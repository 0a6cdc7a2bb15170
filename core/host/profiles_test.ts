import assert from "node:assert/strict";
import { join } from "node:path";
import "../../builtins.ts";
import { openHost } from "./open.ts";

const SKILL = "---\ndescription: Reviews a diff\nrunAs: subagent\n---\nYou review code.\n";

Deno.test("the host finds subagent profiles in the user's ~/.claude/skills too", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-profiles-" });
  const user = join(dir, "user");
  const work = join(dir, "work");
  await Deno.mkdir(join(user, ".claude", "skills", "reviewer"), { recursive: true });
  await Deno.mkdir(work);
  await Deno.writeTextFile(join(user, ".claude", "skills", "reviewer", "SKILL.md"), SKILL);
  try {
    await using host = await openHost({
      cwd: work,
      env: { REASONIX_HOME: join(dir, "home"), HOME: user, FAKE_KEY: "sk-test" },
      endpoint: { baseUrl: "http://127.0.0.1:9", model: "m", apiKeyEnv: "FAKE_KEY" },
    });
    assert.equal((await host.findProfile("reviewer"))?.description, "Reviews a diff");
    assert.deepEqual((await host.listProfiles()).map((p) => p.name), ["reviewer"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
