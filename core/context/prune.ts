/**
 * Tool-result pruning, the first and cheapest maintenance step (spec §3.6): results longer
 * than 8192 code points keep a 4096-code-point head and a 1024-code-point tail.
 *
 * @module
 */

/** Results longer than this many code points are pruned. */
export const PRUNE_THRESHOLD = 8192;
/** Code points kept from the start. */
export const PRUNE_HEAD = 4096;
/** Code points kept from the end. */
export const PRUNE_TAIL = 1024;
/** The marker between head and tail. */
export const PRUNE_MARKER = "[... tool result middle pruned ...]";

/** Whether a text is long enough to prune. Cheap for short strings. */
export function needsPrune(text: string): boolean {
  // A string of n UTF-16 units holds at least n/2 code points.
  if (text.length <= PRUNE_THRESHOLD) return false;
  if (text.length > PRUNE_THRESHOLD * 2) return true;
  let count = 0;
  for (const _ of text) if (++count > PRUNE_THRESHOLD) return true;
  return false;
}

/** The pruned form: head + marker + tail, counted in code points. */
export function pruneText(text: string): string {
  if (!needsPrune(text)) return text;
  const points = Array.from(text);
  return points.slice(0, PRUNE_HEAD).join("") + `\n${PRUNE_MARKER}\n` +
    points.slice(points.length - PRUNE_TAIL).join("");
}
