/**
 * Text helpers the tools share: cutting text without splitting a character, and sizes for
 * people.
 *
 * @module
 */

/** Whether a UTF-16 code unit is the high (first) half of a surrogate pair. */
function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The first `max` UTF-16 code units of `text`, one fewer when the cut would split a
 * surrogate pair, so a cut never leaves half a character.
 */
export function sliceChars(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max);
}

/** Number of characters (code points) in `text`. */
export function charCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if (isHighSurrogate(text.charCodeAt(i))) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * `text` cut to at most `max` UTF-16 units without splitting a character, with a
 * `[... N more characters]` marker when something was cut.
 */
export function clipLine(text: string, max: number): string {
  if (text.length <= max) return text;
  const kept = sliceChars(text, max);
  return `${kept} [... ${charCount(text.slice(kept.length))} more characters]`;
}

/** A byte count for people: `512 B`, `1.5 KiB`, `3.2 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 100 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
