/**
 * Text a server controls (its name and version, tool names and descriptions, error messages,
 * stderr) reaches terminals: `reasonix mcp get`, run warnings, the `/mcp` panel. Escape
 * sequences in it could retitle the window, clear the screen, hide text or, on some
 * terminals, write to the clipboard, so they are removed where the text enters Reasonix.
 *
 * @module
 */

/**
 * Complete sequences first (so their parameters go with them), then every lone control
 * character: CSI `ESC [ … final` (and C1 `\x9b`), OSC/DCS/SOS/PM/APC strings up to BEL or ST,
 * two-character `ESC x`, and C0/C1 controls and DEL except `\n` and `\t`.
 */
const SEQUENCES =
  // deno-lint-ignore no-control-regex
  /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[\x20-\x7e]?/g;
// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` without terminal control sequences and control characters (`\n` and `\t` stay). */
export function stripControl(text: string): string {
  return text.replace(SEQUENCES, "").replace(CONTROLS, "");
}

/** {@link stripControl} for an optional value. */
export function stripOptional(text: string | undefined): string | undefined {
  return text === undefined ? undefined : stripControl(text);
}
