/**
 * Unified diffs for front ends (`ToolResult.meta.diff`). Never sent to the model.
 *
 * @module
 */
import { createTwoFilesPatch } from "diff";

/** Texts larger than this get no diff: front ends show a summary instead. */
const MAX_DIFF_CHARS = 2 * 1024 * 1024;
/** A diff that takes longer than this is dropped rather than stalling the call. */
const DIFF_TIMEOUT_MS = 1000;

/** A unified diff of `before` → `after` labelled with `name`, or undefined when too costly. */
export function unifiedDiff(name: string, before: string, after: string): string | undefined {
  if (before.length + after.length > MAX_DIFF_CHARS) return undefined;
  return createTwoFilesPatch(
    name,
    name,
    before.replaceAll("\r\n", "\n"),
    after.replaceAll("\r\n", "\n"),
    undefined,
    undefined,
    { context: 3, timeout: DIFF_TIMEOUT_MS },
  );
}
