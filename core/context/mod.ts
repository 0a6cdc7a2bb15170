/**
 * Cache-first context management (spec §3.6): the token estimator, the provider-visible
 * projection, pruning, summaries and the maintenance transaction.
 *
 * @module
 */
export {
  type CompactionReport,
  CompactionRequiredError,
  ContextManager,
  type ContextManagerOptions,
  type Prepared,
} from "./manager.ts";
export {
  type CacheBreak,
  type CacheBreakCause,
  CacheMeter,
  type CacheMeterOptions,
  type CacheObservation,
  type CacheTotals,
  canonicalBody,
  type ObserveOptions,
  type PlannedStep,
  sharedPrefix,
} from "./cache_meter.ts";
export { IMAGE_TOKENS, TokenEstimator } from "./estimator.ts";
export { BLANKED_RESULT, emptyProjection, ProjectionView } from "./projection.ts";
export { PRUNE_HEAD, PRUNE_MARKER, PRUNE_TAIL, PRUNE_THRESHOLD, pruneText } from "./prune.ts";
export {
  COMPACTION_INSTRUCTION,
  compactionInstruction,
  requestSummary,
  SUMMARY_MAX_TOKENS,
} from "./summary.ts";
export { toolResultCapability } from "./tool_results.ts";
