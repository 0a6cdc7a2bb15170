import assert from "node:assert/strict";
import { join } from "node:path";
import { listProfiles } from "../../core/subagent/mod.ts";
import { startUiSession } from "../../tests/support/ui_session.ts";
import { helpLines } from "./panels.ts";
import { slashCatalog } from "./slash.ts";

function skill(front: Record<string, string>, body = "You review code."): string {
  const lines = Object.entries(front).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join("\n")}\n---\n${body}\n`;
}

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
}

Deno.test("subagent profiles are offered in the slash menu with their description", async () => {
  const s = await startUiSession({
    script: [],
    files: {
      ".reasonix/skills/reviewer/SKILL.md": skill({
        name: "reviewer",
        description: "Reviews a diff",
        runAs: "subagent",
      }),
      // A plain skill is no profile; a profile named like a built-in leaves the built-in.
      ".reasonix/skills/notes/SKILL.md": skill({ name: "notes", description: "Take notes" }),
      ".reasonix/skills/help/SKILL.md": skill({ description: "Shadowed", runAs: "subagent" }),
    },
  });
  try {
    const menu = () => {
      const o = s.controller.getSnapshot().overlay;
      return o?.kind === "slash" ? o.items : [];
    };
    s.type("/");
    await s.until(() => menu().some((i) => i.name === "reviewer"), "the project's profile");
    assert.ok(!menu().some((i) => i.name === "researcher"));
    s.press({ backspace: true });
    // A profile written during the session appears: the list is read again when `/` is typed.
    await write(
      join(s.home, "skills", "researcher", "SKILL.md"),
      skill({ description: "Finds things", runAs: "subagent" }),
    );
    // The project's profile wins over the user's of the same name.
    await write(
      join(s.home, "skills", "reviewer", "SKILL.md"),
      skill({ description: "The user's reviewer", runAs: "subagent" }),
    );
    s.type("/");
    await s.until(() => menu().some((i) => i.name === "researcher"), "the user's profile");
    const profiles = menu().filter((i) => i.source === "profile");
    assert.deepEqual(profiles.map((p) => [p.name, p.description, p.argumentHint]), [
      ["researcher", "Finds things (subagent)", "<task>"],
      ["reviewer", "Reviews a diff (subagent)", "<task>"],
    ]);
    assert.equal(menu().filter((i) => i.name === "help").length, 1);
    assert.ok(!menu().some((i) => i.name === "notes"));

    s.type("rev");
    assert.deepEqual(menu().map((i) => i.name), ["reviewer"]);
    // Enter completes the name so the task can be typed, as for a command with arguments.
    s.press({ return: true });
    assert.equal(s.controller.getSnapshot().editor.text, "/reviewer ");
    assert.equal(s.controller.getSnapshot().busy, undefined);
  } finally {
    await s.close();
  }
});

Deno.test("profiles are listed once by the name they run under, the first directory winning", async () => {
  const root = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  try {
    await write(
      join(root, ".claude", "skills", "tester", "SKILL.md"),
      skill({ name: "other-name", description: "Runs tests", runAs: "subagent" }),
    );
    await write(
      join(root, ".reasonix", "skills", "tester", "SKILL.md"),
      skill({ description: "not a profile" }),
    );
    // `/Upper` would find nothing: profile names are lower case.
    await write(
      join(home, "skills", "Upper", "SKILL.md"),
      skill({ name: "upper", description: "x", runAs: "subagent" }),
    );
    await write(join(home, "skills", "empty", "SKILL.md"), skill({ runAs: "subagent" }, ""));
    const listed = await listProfiles({ root, home });
    assert.deepEqual(listed.map((p) => [p.name, p.description]), [["tester", "Runs tests"]]);
    // The file it came from: not the .reasonix one before it, which is no profile.
    assert.equal(listed[0].path, join(root, ".claude", "skills", "tester", "SKILL.md"));
    const help = helpLines(slashCatalog([], [], listed)).join("\n");
    assert.match(help, /Subagent profiles\n {2}\/tester <task> +Runs tests \(subagent\)/);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
