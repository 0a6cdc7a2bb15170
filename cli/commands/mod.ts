/**
 * The `reasonix` command tree (commander): the program, every subcommand's options, and the
 * helpers that run a tree and turn its errors into exit codes.
 *
 * @module
 */
export { defineCompletions, SHELLS } from "./completions.ts";
export { defineConfig } from "./config.ts";
export {
  action,
  type CliContext,
  type CliIo,
  commandPath,
  configureTree,
  CONSOLE_IO,
  execute,
  runSubtree,
  unknownCommand,
  UsageError,
  usageError,
} from "./execute.ts";
export { defineMcp } from "./mcp.ts";
export { buildProgram } from "./program.ts";
export { defineRun, parseDuration, runOptions } from "./run.ts";
export { defineSessions } from "./sessions.ts";
export { defineTrust } from "./trust.ts";
export type {
  AddArgs,
  CompletionsModule,
  ConfigModule,
  InteractiveModule,
  InteractiveOptions,
  McpModule,
  McpRequest,
  RunModule,
  RunOptions,
  SessionsModule,
  Shell,
  TrustModule,
  TrustRequest,
} from "./types.ts";
