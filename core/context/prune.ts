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

/**
 * The pruned form: head + marker + tail, counted in code points. Walks only the code points
 * it keeps (a long result is never split into an array of characters).
 */
export function pruneText(text: string): string {
  if (!needsPrune(text)) return text;
  let headEnd = 0;
  for (let n = 0; n < PRUNE_HEAD; n++) headEnd += unitsAt(text, headEnd);
  let tailStart = text.length;
  for (let n = 0; n < PRUNE_TAIL; n++) tailStart -= unitsBefore(text, tailStart);
  return text.slice(0, headEnd) + `\n${PRUNE_MARKER}\n` + text.slice(tailStart);
}

/** UTF-16 units of the code point starting at `i` (a lone surrogate counts as one). */
function unitsAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff) return 1;
  const d = text.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
}

/** UTF-16 units of the code point ending just before `i`. */
function unitsBefore(text: string, i: number): number {
  const c = text.charCodeAt(i - 1);
  if (c < 0xdc00 || c > 0xdfff) return 1;
  const d = text.charCodeAt(i - 2);
  return d >= 0xd800 && d <= 0xdbff ? 2 : 1;
}
