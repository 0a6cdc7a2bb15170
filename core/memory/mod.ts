/**
 * History search and memory facts (spec §3.6): the BM25 index (kept beside the sessions for
 * their archive), the `history` tool, the fact store (with revisions and restore), auto-recall
 * and the `memory` / `remember` / `forget` tools.
 *
 * @module
 */
export {
  BM25_FORMAT_VERSION,
  Bm25FormatError,
  Bm25Index,
  type Hit,
  type SearchOptions,
  tokenize,
} from "./bm25.ts";
export {
  type Archive,
  type HistoryHit,
  HistoryIndex,
  type HistoryStoreOptions,
  historyTool,
} from "./history.ts";
export { HISTORY_INDEX_VERSION, historyIndexPath } from "./history_store.ts";
export {
  type Fact,
  FACT_FORMAT_VERSION,
  type FactScope,
  FactStore,
  type FactType,
  MemoryError,
} from "./facts.ts";
export { factLine, isGenericRequest, rankFacts, recallBlock } from "./recall.ts";
export { looksSensitive, memoryTools, newestFirst, revisionLine } from "./tools.ts";
