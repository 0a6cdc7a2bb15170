/**
 * The one-line notice a context compaction report becomes, shared by the transcript view and
 * the controller.
 *
 * @module
 */
import type { CompactionReport } from "../../core/context/manager.ts";
import { formatTokens } from "./status.ts";

/** One line for a compaction report. */
export function compactionText(r: CompactionReport): string {
  const text = phaseText(r);
  if (r.learnedWindow === undefined) return text;
  return `The provider's window for this model is ${r.learnedWindow} tokens, smaller than ` +
    `configured; Reasonix plans for it from now on (set context_window = ${r.learnedWindow} ` +
    `to make it explicit). ${text}`;
}

function phaseText(r: CompactionReport): string {
  const sizes = `${formatTokens(r.beforeTokens)} → ${formatTokens(r.afterTokens)} tokens`;
  const cause = r.cause === "manual" ? "" : ` (${r.cause})`;
  switch (r.phase) {
    case "pruned":
      return `Context pruned long tool results: ${sizes}${cause}`;
    case "summarized":
      return `Context summarized: ${sizes}${cause}`;
    case "truncated":
      return `Context truncated (oldest results dropped): ${sizes}${cause}`;
    case "failed":
      return `Context compaction failed${cause}: ${r.reason ?? "no summary could be formed"}`;
  }
}
