/**
 * Headless output of `reasonix run`: text, one JSON summary, or Claude Code-compatible
 * stream-json lines, and stream-json user turns read from stdin.
 *
 * @module
 */
export {
  type FormatFlags,
  INPUT_FORMATS,
  type InputFormat,
  OUTPUT_FORMATS,
  type OutputFormat,
  parseInputFormat,
  parseOutputFormat,
  resolveFormats,
} from "./format.ts";
export {
  createOutput,
  type HeadlessOutput,
  type OutputOptions,
  runTurns,
  type RunTurnsOptions,
  type TurnsOutcome,
} from "./headless.ts";
export { parseTurnLine, readTurnLines, type TurnLine } from "./input_stream.ts";
export {
  type CacheBreakEntry,
  cacheBreakEntry,
  cacheBytes,
  type GoalSummary,
  goalSummary,
  JsonSummaryWriter,
  type PermissionEntry,
  type RunSummary,
  summarize,
} from "./json_summary.ts";
export { refusalBlock, RefusalLedger, type RefusedEntry, splitFix } from "./refusals.ts";
export type { RunInfo } from "./run_info.ts";
export { runSummaryLine } from "./summary_line.ts";
export {
  type ClaudeUsage,
  claudeUsage,
  type InputLineError,
  type ResultSubtype,
  resultSubtype,
  type StreamJsonOptions,
  StreamJsonWriter,
} from "./stream_json.ts";
