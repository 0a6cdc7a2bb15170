/**
 * Slash commands: parsing of `/name args`, lookup in the built-in table (`slash_commands.ts`),
 * and the completion list that merges built-ins, custom commands and MCP prompts.
 *
 * @module
 */
import type { CustomCommand } from "../../core/commands/mod.ts";
import type { McpPromptView } from "./hooks.ts";
import type { SlashItem } from "./overlays.ts";
import { SLASH_COMMANDS, type SlashCommand } from "./slash_commands.ts";

/** Every name a built-in answers to (custom commands may not take them). */
export const BUILTIN_NAMES: ReadonlySet<string> = new Set(
  SLASH_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]),
);

/** Finds a built-in by name or alias. */
export function findBuiltin(name: string): SlashCommand | undefined {
  return SLASH_COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}

/** A typed slash command. */
export interface SlashInput {
  name: string;
  /** Everything after the name, trimmed. */
  args: string;
}

const SLASH = /^\/([A-Za-z0-9][\w.:-]*)(?:\s+([\s\S]*))?$/;

/**
 * Parses `/name args`. Text such as `/usr/bin is odd` (a path) is not a command: the name must
 * be followed by whitespace or the end.
 */
export function parseSlash(text: string): SlashInput | undefined {
  const match = SLASH.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1], args: (match[2] ?? "").trim() };
}

/** A subagent profile, as `/<profile> task` offers it. */
export interface ProfileCommand {
  name: string;
  description: string;
}

/**
 * Every command the user can type, for completion and `/help`. A profile whose name a
 * built-in, custom command or MCP prompt already answers to is left out: that one runs.
 */
export function slashCatalog(
  custom: readonly CustomCommand[],
  prompts: readonly McpPromptView[],
  profiles: readonly ProfileCommand[] = [],
): SlashItem[] {
  const taken = new Set([
    ...BUILTIN_NAMES,
    ...custom.map((c) => c.name),
    ...prompts.map((p) => p.command),
  ]);
  return [
    ...SLASH_COMMANDS.map((c): SlashItem => ({
      name: c.name,
      description: c.description,
      ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}),
      source: "builtin",
    })),
    ...custom.map((c): SlashItem => ({
      name: c.name,
      description: `${c.description} (${c.scope})`,
      ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}),
      source: "custom",
    })),
    ...prompts.map((p): SlashItem => ({
      name: p.command,
      description: p.description ?? `MCP prompt ${p.prompt} of ${p.server}`,
      ...(p.arguments.length
        ? {
          argumentHint: p.arguments.map((a) => a.required ? `<${a.name}>` : `[${a.name}]`).join(
            " ",
          ),
        }
        : {}),
      source: "mcp",
    })),
    ...profiles.filter((p) => !taken.has(p.name)).map((p): SlashItem => ({
      name: p.name,
      description: p.description ? `${p.description} (subagent)` : "subagent profile",
      argumentHint: "<task>",
      source: "profile",
    })),
  ];
}

/** Completions for `/prefix`: names starting with it first, then names containing it. */
export function completeSlash(prefix: string, catalog: readonly SlashItem[]): SlashItem[] {
  const p = prefix.toLowerCase();
  const starts = catalog.filter((c) => c.name.toLowerCase().startsWith(p));
  const contains = p
    ? catalog.filter((c) => !c.name.toLowerCase().startsWith(p) && c.name.toLowerCase().includes(p))
    : [];
  return [...starts, ...contains];
}
