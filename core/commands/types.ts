/**
 * Types of user-defined slash commands (spec §3.8).
 *
 * @module
 */
import type { Workspace } from "../../tools/workspace/types.ts";

/** Where a custom command was found. Project commands override user commands of the same name. */
export type CommandScope = "project" | "user";

/** A command loaded from a Markdown file. */
export interface CustomCommand {
  /** Name without the leading slash, e.g. `review` for `/review`. */
  name: string;
  /** One line for autocomplete and `/help`. */
  description: string;
  /** Hint shown after the name, e.g. `<file> [focus]`. */
  argumentHint?: string;
  /** The prompt template: the file after its frontmatter. */
  template: string;
  /** Absolute path of the file. */
  path: string;
  scope: CommandScope;
  /** Every frontmatter key, including ones Reasonix does not interpret. */
  frontmatter: Record<string, string>;
}

/** A directory to load commands from. */
export interface CommandSource {
  dir: string;
  scope: CommandScope;
  /** The machine `dir` is on (a remote session's project commands); default this one. */
  workspace?: Workspace;
}

/** What loading produced: usable commands, and one notice per file that was skipped. */
export interface LoadedCommands {
  /** Sorted by name. */
  commands: CustomCommand[];
  notices: string[];
}
