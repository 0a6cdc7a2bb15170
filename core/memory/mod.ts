/**
 * History search and memory facts (spec §3.6): the BM25 index, the `history` tool, the fact
 * store (with revisions and restore), auto-recall and the `memory` / `remember` / `forget`
 * tools.
 *
 * @module
 */
export { Bm25Index, type Hit, tokenize } from "./bm25.ts";
export { type Archive, type HistoryHit, HistoryIndex, historyTool } from "./history.ts";
export { type Fact, type FactScope, FactStore, type FactType, MemoryError } from "./facts.ts";
export { factLine, isGenericRequest, rankFacts, recallBlock } from "./recall.ts";
export { looksSensitive, memoryTools, newestFirst, revisionLine } from "./tools.ts";
