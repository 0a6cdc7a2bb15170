/**
 * Slash commands: the built-in table, parsing of `/name args`, and the completion list that
 * merges built-ins, custom commands and MCP prompts.
 *
 * @module
 */
import type { CustomCommand } from "../../core/commands/mod.ts";
import type { McpPromptView } from "./hooks.ts";
import type { SlashItem } from "./overlays.ts";

/** A built-in command. */
export interface BuiltinCommand {
  name: string;
  description: string;
  argumentHint?: string;
  /** Runs at once even while a turn is running (it does not touch the conversation). */
  immediate?: boolean;
  aliases?: string[];
}

/** Reasoning efforts `/effort` accepts, besides `default`. */
export const EFFORTS = ["low", "medium", "high", "max"] as const;

/** The built-in commands, in `/help` order. */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  { name: "help", description: "Show commands and keys", immediate: true },
  { name: "new", description: "Start a new conversation" },
  { name: "clear", description: "Start a new conversation and clear the screen" },
  {
    name: "compact",
    description: "Summarize the conversation now to free context",
    argumentHint: "[what the summary must keep]",
  },
  {
    name: "effort",
    description: "Show or set the reasoning effort",
    argumentHint: `[${EFFORTS.join("|")}|default]`,
  },
  {
    name: "model",
    description: "Switch the model, keeping the conversation",
    argumentHint: "[provider/model]",
  },
  {
    name: "resume",
    description: "Continue a saved session of this workspace",
    argumentHint: "[session id]",
  },
  { name: "mcp", description: "Show MCP servers, prompts and resources", immediate: true },
  { name: "cost", description: "Show token usage, cache hits and cost", immediate: true },
  { name: "exit", description: "Quit Reasonix", immediate: true, aliases: ["quit"] },
];

/** Every name a built-in answers to (custom commands may not take them). */
export const BUILTIN_NAMES: ReadonlySet<string> = new Set(
  BUILTIN_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]),
);

/** Finds a built-in by name or alias. */
export function findBuiltin(name: string): BuiltinCommand | undefined {
  return BUILTIN_COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
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

/** Every command the user can type, for completion and `/help`. */
export function slashCatalog(
  custom: readonly CustomCommand[],
  prompts: readonly McpPromptView[],
): SlashItem[] {
  return [
    ...BUILTIN_COMMANDS.map((c): SlashItem => ({
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
