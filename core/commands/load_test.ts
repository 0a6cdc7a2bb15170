import assert from "node:assert/strict";
import { join } from "node:path";
import { commandSources, loadCustomCommands, MAX_COMMAND_FILE_BYTES } from "./load.ts";

async function withDirs(
  fn: (dirs: { home: string; root: string }) => Promise<void>,
): Promise<void> {
  const base = await Deno.makeTempDir({ prefix: "reasonix-commands-" });
  const home = join(base, "home");
  const root = join(base, "project");
  await Deno.mkdir(join(home, "commands"), { recursive: true });
  await Deno.mkdir(join(root, ".reasonix", "commands"), { recursive: true });
  try {
    await fn({ home, root });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("custom commands load from the user home and the project, the project winning", async () => {
  await withDirs(async ({ home, root }) => {
    await Deno.writeTextFile(join(home, "commands", "review.md"), "User review of $ARGUMENTS");
    await Deno.writeTextFile(
      join(home, "commands", "standup.md"),
      "---\ndescription: Daily standup notes\n---\nWrite my standup.",
    );
    await Deno.writeTextFile(
      join(root, ".reasonix", "commands", "review.md"),
      "---\ndescription: Project review\nargument-hint: <file>\n---\nReview $1 against CONTRIBUTING.md",
    );
    await Deno.writeTextFile(join(root, ".reasonix", "commands", "notes.txt"), "not a command");
    const loaded = await loadCustomCommands(commandSources({ workspaceRoot: root, home }));
    assert.deepEqual(loaded.notices, []);
    assert.deepEqual(loaded.commands.map((c) => [c.name, c.scope, c.description]), [
      ["review", "project", "Project review"],
      ["standup", "user", "Daily standup notes"],
    ]);
    const review = loaded.commands[0];
    assert.equal(review.argumentHint, "<file>");
    assert.equal(review.template, "Review $1 against CONTRIBUTING.md");
    assert.equal(review.path, join(root, ".reasonix", "commands", "review.md"));
  });
});

Deno.test("a command without a description uses its first line", async () => {
  await withDirs(async ({ home, root }) => {
    await Deno.writeTextFile(
      join(root, ".reasonix", "commands", "fix.md"),
      "\n\n# Fix the failing test\nRun the tests and fix what fails.",
    );
    const { commands } = await loadCustomCommands(commandSources({ workspaceRoot: root, home }));
    assert.equal(commands[0].description, "Fix the failing test");
  });
});

Deno.test("a broken command file is skipped with a notice and the rest still load", async () => {
  await withDirs(async ({ home, root }) => {
    const dir = join(root, ".reasonix", "commands");
    await Deno.writeTextFile(join(dir, "good.md"), "Works");
    await Deno.writeTextFile(join(dir, "unclosed.md"), "---\ndescription: x\n");
    await Deno.writeTextFile(join(dir, "empty.md"), "---\ndescription: nothing\n---\n  \n");
    await Deno.writeFile(join(dir, "binary.md"), new Uint8Array([0xff, 0xfe, 0x00, 0x41]));
    await Deno.writeTextFile(join(dir, "huge.md"), "x".repeat(MAX_COMMAND_FILE_BYTES + 1));
    await Deno.writeTextFile(join(dir, "bad name.md"), "space in the name");
    await Deno.writeTextFile(join(dir, "mcp__x__y.md"), "would shadow an MCP prompt");
    await Deno.writeTextFile(join(dir, "help.md"), "shadows a built-in");
    await Deno.mkdir(join(dir, "folder.md"));
    await Deno.symlink(join(dir, "missing-target"), join(dir, "dangling.md"));
    const loaded = await loadCustomCommands(commandSources({ workspaceRoot: root, home }), {
      reserved: new Set(["help"]),
    });
    assert.deepEqual(loaded.commands.map((c) => c.name), ["good"]);
    const text = loaded.notices.join("\n");
    assert.match(text, /unclosed\.md: frontmatter is not closed/);
    assert.match(text, /empty\.md: the prompt is empty/);
    assert.match(text, /binary\.md: not UTF-8 text/);
    assert.match(text, /huge\.md: larger than 256 KiB/);
    assert.match(text, /bad name\.md: "bad name" is not a usable command name/);
    assert.match(text, /mcp__x__y\.md: "mcp__x__y" is not a usable command name/);
    assert.match(text, /help\.md: \/help is a built-in command/);
    assert.match(text, /dangling\.md: /);
    assert.doesNotMatch(text, /folder\.md/);
    assert.equal(loaded.notices.length, 8);
  });
});

Deno.test("missing command directories are not an error", async () => {
  const loaded = await loadCustomCommands([
    { dir: "/nonexistent/reasonix/commands", scope: "user" },
  ]);
  assert.deepEqual(loaded, { commands: [], notices: [] });
});
