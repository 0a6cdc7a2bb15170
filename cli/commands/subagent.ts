/**
 * `reasonix subagent list|try|run`: subagent profiles (skills with `runAs: subagent`).
 *
 * @module
 */
import type { Command } from "commander";
import { lazyImport } from "../lazy.ts";
import { permissionFlags } from "../permission_flags.ts";
import { action, type CliContext, usageError } from "./execute.ts";
import { addPermissionOptions } from "./options.ts";
import type { SubagentModule } from "./types.ts";

/** Adds `subagent` to `parent`. */
export function defineSubagent(parent: Command, _ctx: CliContext): Command {
  const subagent = parent
    .command("subagent")
    .summary("run and list subagent profiles")
    .description(
      "Subagent profiles are skills with `runAs: subagent` in .reasonix/skills/<name>/SKILL.md " +
        "(or .claude/skills, or skills/ in the Reasonix home). See docs/SUBAGENTS.md.",
    );
  const list = subagent
    .command("list")
    .alias("ls")
    .summary("list the profiles this workspace can use")
    .option("--json", "print them as one JSON array");
  action(list, async (options: { json?: boolean }) => {
    const { subagentList } = await lazyImport<SubagentModule>("cli/subagent_cmd.ts");
    return await subagentList({ json: options.json === true });
  });
  for (const mode of ["try", "run"] as const) {
    const command = subagent
      .command(mode)
      .summary(
        mode === "try"
          ? "run a profile on a task read-only (the process cannot write or run programs)"
          : "run a profile on a task with the configured permission mode and sandbox",
      )
      .argument("<profile>", "the profile's name")
      .argument("[task...]", "the task; several words are joined with spaces")
      .option("-m, --model <name>", "provider, model, or provider/model for the child")
      .option("--json", "print one JSON object at the end (the fields of run --json)");
    if (mode === "run") addPermissionOptions(command);
    action(
      command,
      async (profile: string, words: string[], raw: Record<string, unknown>) => {
        const task = words.join(" ").trim();
        if (!task) throw usageError(command, "no task given.");
        const { subagentRun } = await lazyImport<SubagentModule>("cli/subagent_cmd.ts");
        return await subagentRun({
          mode,
          profile,
          task,
          json: raw.json === true,
          model: raw.model as string | undefined,
          permissions: permissionFlags(raw),
        });
      },
    );
  }
  for (const name of ["create", "edit", "delete"] as const) {
    const command = subagent
      .command(name)
      .summary(
        name === "create"
          ? "write a simple profile (.reasonix/skills/<name>/SKILL.md)"
          : name === "edit"
          ? "change a simple profile; fields not given stay as they are"
          : "remove a simple profile",
      )
      .argument("<name>", "the profile's name")
      .option("--global", "the profile in the Reasonix home, for every project");
    if (name !== "delete") {
      command
        .option("--description <text>", "one line saying what the profile is for")
        .option("--prompt <text>", "the child's whole system prompt")
        .option("-m, --model <name>", "provider, model, or provider/model")
        .option("--effort <level>", "reasoning effort")
        .option("--read-only", "the profile never writes")
        .option("--no-read-only", "the profile may write (within each task's write_paths)")
        .option("--allowed-tools <names>", "the tools it may have, e.g. read_file,grep");
    }
    action(command, async (profile: string, raw: Record<string, unknown>) => {
      const { subagentManage } = await lazyImport<SubagentModule>("cli/subagent_cmd.ts");
      return await subagentManage({
        action: name,
        name: profile,
        global: raw.global === true,
        fields: {
          description: raw.description as string | undefined,
          prompt: raw.prompt as string | undefined,
          model: raw.model as string | undefined,
          effort: raw.effort as string | undefined,
          readOnly: raw.readOnly as boolean | undefined,
          allowedTools: raw.allowedTools as string | undefined,
        },
      });
    });
  }
  return subagent;
}
