/**
 * Custom slash commands (spec §3.8): Markdown prompt templates with a small frontmatter,
 * loaded from the project and the user's Reasonix home.
 *
 * @module
 */
export type { CommandScope, CommandSource, CustomCommand, LoadedCommands } from "./types.ts";
export { type FrontmatterDocument, FrontmatterError, parseFrontmatter } from "./frontmatter.ts";
export {
  expandTemplate,
  expandTemplateParts,
  splitArguments,
  type TemplateExpansion,
  usesArguments,
} from "./template.ts";
export { commandSources, loadCustomCommands, MAX_COMMAND_FILE_BYTES } from "./load.ts";
