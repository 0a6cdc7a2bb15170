/**
 * The composer's editing model: multi-line text with a cursor, as pure functions, so key
 * handling is testable without a terminal. Offsets are UTF-16 indexes that never split a
 * surrogate pair.
 *
 * @module
 */

/** Text being edited and the cursor offset in it. */
export interface EditorState {
  text: string;
  cursor: number;
  /**
   * The text was recalled from the prompt history and not edited since. Cursor moves keep
   * it; any edit drops it. While set, ↑/↓ walk the history and no completion menu opens, so
   * a recalled `/mcp…` entry cannot capture the arrows.
   */
  recalled?: true;
}

/** An empty editor. */
export const EMPTY_EDITOR: EditorState = { text: "", cursor: 0 };

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Offset of the grapheme boundary before `offset`. */
function previousBoundary(text: string, offset: number): number {
  let last = 0;
  for (const { index } of segmenter.segment(text)) {
    if (index >= offset) break;
    last = index;
  }
  return last;
}

/** Offset of the grapheme boundary after `offset`. */
function nextBoundary(text: string, offset: number): number {
  for (const { index, segment } of segmenter.segment(text)) {
    if (index >= offset) return index + segment.length;
  }
  return text.length;
}

/** Inserts text at the cursor. Carriage returns become newlines. */
export function insert(s: EditorState, input: string): EditorState {
  const clean = input.replace(/\r\n?/g, "\n");
  return {
    text: s.text.slice(0, s.cursor) + clean + s.text.slice(s.cursor),
    cursor: s.cursor + clean.length,
  };
}

/** Deletes the character before the cursor. */
export function backspace(s: EditorState): EditorState {
  if (s.cursor === 0) return s;
  const at = previousBoundary(s.text, s.cursor);
  return { text: s.text.slice(0, at) + s.text.slice(s.cursor), cursor: at };
}

/** Deletes the character under the cursor. */
export function deleteForward(s: EditorState): EditorState {
  if (s.cursor >= s.text.length) return s;
  const end = nextBoundary(s.text, s.cursor);
  return { text: s.text.slice(0, s.cursor) + s.text.slice(end), cursor: s.cursor };
}

/** Moves one character left. */
export function left(s: EditorState): EditorState {
  return { ...s, cursor: previousBoundary(s.text, s.cursor) };
}

/** Moves one character right. */
export function right(s: EditorState): EditorState {
  return { ...s, cursor: s.cursor >= s.text.length ? s.cursor : nextBoundary(s.text, s.cursor) };
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const end = text.indexOf("\n", offset);
  return end === -1 ? text.length : end;
}

/** Moves to the start of the current line. */
export function home(s: EditorState): EditorState {
  return { ...s, cursor: lineStart(s.text, s.cursor) };
}

/** Moves to the end of the current line. */
export function end(s: EditorState): EditorState {
  return { ...s, cursor: lineEnd(s.text, s.cursor) };
}

/** Moves up one line, keeping the column; undefined when already on the first line. */
export function up(s: EditorState): EditorState | undefined {
  const start = lineStart(s.text, s.cursor);
  if (start === 0) return undefined;
  const column = s.cursor - start;
  const prevStart = lineStart(s.text, start - 1);
  return { ...s, cursor: Math.min(prevStart + column, start - 1) };
}

/** Moves down one line, keeping the column; undefined when already on the last line. */
export function down(s: EditorState): EditorState | undefined {
  const endOfLine = lineEnd(s.text, s.cursor);
  if (endOfLine === s.text.length) return undefined;
  const column = s.cursor - lineStart(s.text, s.cursor);
  const nextStart = endOfLine + 1;
  return { ...s, cursor: Math.min(nextStart + column, lineEnd(s.text, nextStart)) };
}

/** Deletes from the start of the line to the cursor (Ctrl-U). */
export function killToLineStart(s: EditorState): EditorState {
  const start = lineStart(s.text, s.cursor);
  if (start === s.cursor && start > 0) {
    // At a line start: join with the previous line, like a shell's Ctrl-U on an empty line.
    return backspace(s);
  }
  return { text: s.text.slice(0, start) + s.text.slice(s.cursor), cursor: start };
}

/** Deletes from the cursor to the end of the line (Ctrl-K). */
export function killToLineEnd(s: EditorState): EditorState {
  const stop = lineEnd(s.text, s.cursor);
  const to = stop === s.cursor && stop < s.text.length ? stop + 1 : stop;
  return { text: s.text.slice(0, s.cursor) + s.text.slice(to), cursor: s.cursor };
}

/** Deletes the word before the cursor (Ctrl-W). */
export function deleteWordBack(s: EditorState): EditorState {
  let at = s.cursor;
  while (at > 0 && /\s/.test(s.text[at - 1])) at--;
  while (at > 0 && !/\s/.test(s.text[at - 1])) at--;
  return { text: s.text.slice(0, at) + s.text.slice(s.cursor), cursor: at };
}

/** The whitespace-delimited word that ends at the cursor, and where it starts. */
export function wordAtCursor(s: EditorState): { word: string; start: number } {
  let start = s.cursor;
  while (start > 0 && !/\s/.test(s.text[start - 1])) start--;
  return { word: s.text.slice(start, s.cursor), start };
}

/** Replaces the word ending at the cursor with `replacement`. */
export function replaceWordAtCursor(s: EditorState, replacement: string): EditorState {
  const { start } = wordAtCursor(s);
  let stop = s.cursor;
  while (stop < s.text.length && !/\s/.test(s.text[stop])) stop++;
  return {
    text: s.text.slice(0, start) + replacement + s.text.slice(stop),
    cursor: start + replacement.length,
  };
}

/** Sets the whole text with the cursor at its end. */
export function setText(text: string): EditorState {
  return { text, cursor: text.length };
}

/** A history entry put in the composer: the cursor at its end, marked as recalled. */
export function recall(text: string): EditorState {
  return { text, cursor: text.length, recalled: true };
}

/** Whether completion menus may open for `s`: only for text the user typed or edited. */
export function completionAllowed(s: EditorState): boolean {
  return s.recalled !== true;
}
