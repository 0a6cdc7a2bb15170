/**
 * The `reasonix` command tree (commander): the program, every subcommand's options, and the
 * helpers that run a tree and turn its errors into exit codes; and the fast path of
 * `reasonix run`, which reads the same option declarations without commander.
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
export { failureExit } from "./failure.ts";
export { type FastRunArgs, readRunArgs, runFast } from "./fast_run.ts";
export { defineMcp } from "./mcp.ts";
export {
  type OptionFlags,
  optionFlags,
  type OptionSpec,
  type ReadOptions,
  readOptions,
} from "./option_spec.ts";
export { addOptions, addPermissionOptions } from "./options.ts";
export { buildProgram } from "./program.ts";
export { defineRun, parseDuration, runOptions } from "./run.ts";
export {
  checkRunOptions,
  CWD_OPTION,
  type RawRunOptions,
  RUN_COMMAND,
  RUN_OPTIONS,
  type RunUsage,
} from "./run_spec.ts";
export { defineSessions } from "./sessions.ts";
export { defineSetup, SETUP_HELP_PRESETS } from "./setup.ts";
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
  SetupModule,
  SetupOptions,
  Shell,
  TrustModule,
  TrustRequest,
} from "./types.ts";
