/**
 * Loads custom slash commands from `.reasonix/commands/*.md` in the project and `commands/*.md`
 * in the user's Reasonix home. A file that cannot be used is skipped with a notice; loading
 * itself never fails.
 *
 * @module
 */
import { join } from "node:path";
import { parseFrontmatter } from "./frontmatter.ts";
import type { CommandSource, CustomCommand, LoadedCommands } from "./types.ts";
import { fsErrorCode } from "../../tools/workspace/errors.ts";
import { localWorkspace } from "../../tools/workspace/local.ts";
import type { Workspace } from "../../tools/workspace/types.ts";

/** Command files larger than this are skipped: a prompt template is never that big. */
export const MAX_COMMAND_FILE_BYTES = 256 * 1024;

/** Valid command names: what can be typed after `/` without quoting. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The standard places to look, lowest precedence first. The project's are read through
 * `workspace` (the host's: another machine's in a remote session), the user's on this machine.
 */
export function commandSources(
  opts: { workspaceRoot: string; home: string; workspace?: Workspace },
): CommandSource[] {
  return [
    { dir: join(opts.home, "commands"), scope: "user" },
    {
      dir: join(opts.workspaceRoot, ".reasonix", "commands"),
      scope: "project",
      ...(opts.workspace ? { workspace: opts.workspace } : {}),
    },
  ];
}

function firstLine(text: string): string {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  const plain = line.replace(/^#+\s*/, "");
  return plain.length > 80 ? `${plain.slice(0, 79)}…` : plain;
}

async function listMarkdown(fs: Workspace, dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of fs.readDir(dir)) {
    if (entry.name.endsWith(".md") && (entry.isFile || entry.isSymlink)) names.push(entry.name);
  }
  return names.sort();
}

async function loadOne(
  fs: Workspace,
  path: string,
  name: string,
  scope: CustomCommand["scope"],
): Promise<CustomCommand> {
  const stat = await fs.stat(path);
  if (!stat.isFile) throw new Error("not a regular file");
  if (stat.size > MAX_COMMAND_FILE_BYTES) {
    throw new Error(`larger than ${MAX_COMMAND_FILE_BYTES / 1024} KiB`);
  }
  const bytes = await fs.readFile(path);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Error("not UTF-8 text");
  }
  const { attributes, body } = parseFrontmatter(text);
  const template = body.trim();
  if (template === "") throw new Error("the prompt is empty");
  const hint = attributes["argument-hint"] ?? attributes["argument_hint"];
  return {
    name,
    description: attributes.description || firstLine(template),
    ...(hint ? { argumentHint: hint } : {}),
    template,
    path,
    scope,
    frontmatter: attributes,
  };
}

/**
 * Loads every `*.md` file of `sources` (later sources override earlier ones by name). Names in
 * `reserved` (built-in commands) and names that cannot be typed are skipped with a notice, as
 * is any file that cannot be read or parsed.
 */
export async function loadCustomCommands(
  sources: readonly CommandSource[],
  opts: { reserved?: ReadonlySet<string> } = {},
): Promise<LoadedCommands> {
  const byName = new Map<string, CustomCommand>();
  const notices: string[] = [];
  for (const source of sources) {
    const fs = source.workspace ?? localWorkspace();
    let files: string[];
    try {
      files = await listMarkdown(fs, source.dir);
    } catch (error) {
      const code = fsErrorCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") {
        notices.push(`cannot read commands in ${source.dir}: ${(error as Error).message}`);
      }
      continue;
    }
    for (const file of files) {
      const path = join(source.dir, file);
      const name = file.slice(0, -".md".length);
      if (!NAME.test(name) || name.startsWith("mcp__")) {
        notices.push(
          `skipped command ${path}: "${name}" is not a usable command name ` +
            "(letters, digits, '.', '_' and '-'; not starting with mcp__)",
        );
        continue;
      }
      if (opts.reserved?.has(name)) {
        notices.push(`skipped command ${path}: /${name} is a built-in command`);
        continue;
      }
      try {
        byName.set(name, await loadOne(fs, path, name, source.scope));
      } catch (error) {
        notices.push(`skipped command ${path}: ${(error as Error)?.message ?? error}`);
      }
    }
  }
  const commands = [...byName.values()].sort((a, b) => a.name < b.name ? -1 : 1);
  return { commands, notices };
}
