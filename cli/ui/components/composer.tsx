/**
 * The composer: a multi-line prompt with a visible cursor, kept to a few rows around the
 * cursor when the text is long. Long lines are wrapped here, not by the terminal, so the
 * layout knows how many rows the box takes.
 *
 * @module
 */
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import stringWidth from "string-width";
import type { EditorState } from "../composer_model.ts";
import type { Styles } from "../style.ts";

/** Most text rows shown; longer text scrolls around the cursor. */
export const COMPOSER_MAX_LINES = 8;

/** Marker at the start of the composer (tests look for it). */
export const PROMPT_MARK = "› ";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Columns for text inside the box: borders, padding and the prompt mark take six. */
function textColumns(width: number): number {
  return Math.max(2, width - 6);
}

/**
 * The editor's text as screen rows of at most `columns` cells, the cursor drawn in: inverted
 * with colour, `▌` before the character without. Also which row holds the cursor.
 */
function screenRows(
  editor: EditorState,
  columns: number,
  s: Styles,
): { rows: string[]; cursorRow: number } {
  const rows: string[] = [];
  let cursorRow = 0;
  let offset = 0;
  for (const line of editor.text.split("\n")) {
    const column = editor.cursor - offset;
    const hasCursor = column >= 0 && column <= line.length;
    offset += line.length + 1;
    const cells: { text: string; width: number; index: number }[] = [];
    for (const { segment, index } of segmenter.segment(line)) {
      cells.push({ text: segment, width: stringWidth(segment), index });
    }
    // At the end of the line the cursor is a cell of its own.
    if (hasCursor && column === line.length) cells.push({ text: "", width: 0, index: column });
    let row = "";
    let used = 0;
    for (const cell of cells) {
      const isCursor = hasCursor && cell.index === column;
      const text = isCursor ? (s.color ? s.inverse(cell.text || " ") : `▌${cell.text}`) : cell.text;
      const width = isCursor ? (s.color ? Math.max(1, cell.width) : 1 + cell.width) : cell.width;
      if (used > 0 && used + width > columns) {
        rows.push(row);
        row = "";
        used = 0;
      }
      if (isCursor) cursorRow = rows.length;
      row += text;
      used += width;
    }
    rows.push(row);
  }
  return { rows, cursorRow };
}

/** Screen rows the composer's text takes at `width` (before any cut). */
export function composerTextRows(editor: EditorState, width: number, s: Styles): number {
  return screenRows(editor, textColumns(width), s).rows.length;
}

/** Props of {@link Composer}. */
export interface ComposerProps {
  editor: EditorState;
  width: number;
  placeholder?: string;
  styles: Styles;
  /** Most rows of the box, borders and scroll markers included (the layout's budget). */
  maxRows?: number;
}

/** The prompt box. */
export function Composer(props: ComposerProps): ReactNode {
  const s = props.styles;
  const { rows: shown, cursorRow } = screenRows(props.editor, textColumns(props.width), s);
  // Text rows the budget leaves inside the borders; a cut window also needs its two markers.
  const inner = Math.max(1, (props.maxRows ?? Infinity) - 2);
  const fits = shown.length <= Math.min(COMPOSER_MAX_LINES, inner);
  const markers = !fits && inner >= 3;
  const limit = fits ? shown.length : Math.min(COMPOSER_MAX_LINES, markers ? inner - 2 : inner);
  let first = 0;
  if (shown.length > limit) {
    first = Math.min(Math.max(0, cursorRow - Math.floor(limit / 2)), shown.length - limit);
  }
  const window = shown.slice(first, first + limit);
  const empty = props.editor.text === "" && props.placeholder;
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderDimColor={s.color}
      width={props.width}
      paddingX={1}
    >
      {markers && first > 0 && (
        <Text>{s.dim(`  ↑ ${first} more line${first === 1 ? "" : "s"}`)}</Text>
      )}
      {window.map((line, i) => (
        <Box key={i + first} flexDirection="row">
          <Text>{i + first === 0 ? s.cyan(PROMPT_MARK) : "  "}</Text>
          <Box width={textColumns(props.width)}>
            <Text wrap="truncate-end">{empty ? `${line}${s.dim(props.placeholder!)}` : line}</Text>
          </Box>
        </Box>
      ))}
      {markers && first + limit < shown.length && (
        <Text>{s.dim(`  ↓ ${shown.length - first - limit} more lines`)}</Text>
      )}
    </Box>
  );
}
