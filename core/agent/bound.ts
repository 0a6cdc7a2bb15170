/**
 * Bounds tool output to the provider-visible limit while keeping both ends, which is where
 * errors and summaries usually are.
 *
 * @module
 */

/** Largest provider-visible tool result, in UTF-8 bytes (spec §3.6: `Content` ≤ 32 KB). */
export const MAX_TOOL_CONTENT_BYTES = 32 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Cuts `bytes` to at most `n` bytes without splitting a UTF-8 sequence. */
function headBytes(bytes: Uint8Array, n: number): string {
  let end = Math.min(n, bytes.length);
  while (end > 0 && end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** Takes at most the last `n` bytes without splitting a UTF-8 sequence. */
function tailBytes(bytes: Uint8Array, n: number): string {
  let start = Math.max(0, bytes.length - n);
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return decoder.decode(bytes.subarray(start));
}

/**
 * Returns `text` unchanged when it fits in `maxBytes`, else its head and tail around a marker
 * that says how much was left out. The result never exceeds `maxBytes`.
 */
export function boundText(text: string, maxBytes: number = MAX_TOOL_CONTENT_BYTES): string {
  // Fast path: a UTF-8 string is at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const marker =
    `\n[... ${bytes.length} bytes in total; the middle was cut to fit ${maxBytes} ...]\n`;
  const room = maxBytes - encoder.encode(marker).length;
  const head = Math.floor(room * 0.75);
  return headBytes(bytes, head) + marker + tailBytes(bytes, room - head);
}
