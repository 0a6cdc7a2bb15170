import assert from "node:assert/strict";
import { startUiSession } from "../../tests/support/ui_session.ts";
import { BUILTIN_NAMES, findBuiltin } from "./slash.ts";
import { SLASH_COMMANDS, type SlashCommand } from "./slash_commands.ts";

const ENTER = { return: true };

Deno.test("/help and completion list exactly the command table, in its order", async () => {
  const s = await startUiSession({ script: [] });
  try {
    s.type("/");
    const overlay = s.controller.getSnapshot().overlay;
    assert.ok(overlay?.kind === "slash");
    assert.deepEqual(overlay.items.map((i) => i.name), SLASH_COMMANDS.map((c) => c.name));
    s.press({ ctrl: true }, "u");
    await s.controller.submit("/help");
    const help = s.controller.getSnapshot().overlay;
    assert.ok(help?.kind === "help");
    // A name too long for the column has its description on the next line, in the column.
    const commands = help.lines.slice(1, help.lines.indexOf("")).join("\n")
      .replace(/\n {3,}/g, "  ").split("\n");
    assert.deepEqual(
      commands.map((line) => line.replace(/\s{2,}/g, "  ")),
      SLASH_COMMANDS.map((c) =>
        `  /${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}  ${c.description}`
      ),
    );
    const lines = help.lines.slice(1, help.lines.indexOf(""));
    const columns = new Set(
      SLASH_COMMANDS.map((c) =>
        lines.find((l) => l.endsWith(c.description))!.indexOf(c.description)
      ),
    );
    assert.equal(columns.size, 1, lines.join("\n"));
  } finally {
    await s.close();
  }
});

Deno.test("a command added to the table is listed, completed and run by its handler", async () => {
  const ran: string[] = [];
  const probe: SlashCommand = {
    name: "probe",
    description: "A command only this test knows",
    argumentHint: "[word]",
    aliases: ["pr"],
    run: (ctx, args) => {
      ran.push(args);
      ctx.notice("info", `probe ran with ${args}`);
      ctx.changed();
    },
  };
  (SLASH_COMMANDS as SlashCommand[]).push(probe);
  const s = await startUiSession({ script: [] });
  try {
    assert.equal(findBuiltin("pr"), probe);
    s.type("/prob");
    const overlay = s.controller.getSnapshot().overlay;
    assert.ok(overlay?.kind === "slash");
    assert.deepEqual(overlay.items.map((i) => i.name), ["probe"]);
    s.press({ ctrl: true }, "u");
    s.type("/pr hello");
    s.press(ENTER);
    await s.controller.idle();
    assert.deepEqual(ran, ["hello"]);
    assert.ok(s.lines().includes("info: probe ran with hello"), s.lines().join("\n"));
    assert.equal(s.fake.requests.length, 0);
    await s.controller.submit("/help");
    const help = s.controller.getSnapshot().overlay;
    assert.ok(help?.kind === "help");
    assert.ok(
      help.lines.some((l) => /^ {2}\/probe \[word\] +A command only this test knows$/.test(l)),
      help.lines.join("\n"),
    );
  } finally {
    (SLASH_COMMANDS as SlashCommand[]).pop();
    await s.close();
  }
});

Deno.test("every built-in name and alias is reserved from custom commands", () => {
  for (const command of SLASH_COMMANDS) {
    for (const name of [command.name, ...(command.aliases ?? [])]) {
      assert.ok(BUILTIN_NAMES.has(name), name);
      assert.equal(findBuiltin(name), command);
    }
  }
});
