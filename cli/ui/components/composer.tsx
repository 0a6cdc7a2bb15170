/**
 * The composer: a multi-line prompt with a visible cursor, kept to a few lines around the
 * cursor when the text is long.
 *
 * @module
 */
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import type { EditorState } from "../composer_model.ts";
import type { Styles } from "../style.ts";

/** Most text lines shown; longer text scrolls around the cursor. */
export const COMPOSER_MAX_LINES = 8;

/** Marker at the start of the composer (tests look for it). */
export const PROMPT_MARK = "› ";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** `line` with the grapheme at `column` shown inverted (a space at the end of the line). */
function withCursor(line: string, column: number, s: Styles): string {
  const before = line.slice(0, column);
  const rest = line.slice(column);
  const first = [...segmenter.segment(rest)][0]?.segment;
  const under = first ?? " ";
  const cursor = s.color ? s.inverse(under) : "▌" + (first ?? "");
  return before + cursor + rest.slice(first?.length ?? 0);
}

/** Props of {@link Composer}. */
export interface ComposerProps {
  editor: EditorState;
  width: number;
  placeholder?: string;
  styles: Styles;
}

/** The prompt box. */
export function Composer(props: ComposerProps): ReactNode {
  const s = props.styles;
  const { text, cursor } = props.editor;
  const lines = text.split("\n");
  let cursorLine = 0;
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    if (cursor <= offset + lines[i].length) {
      cursorLine = i;
      break;
    }
    offset += lines[i].length + 1;
  }
  const column = cursor - offset;
  const shown = lines.map((line, i) => i === cursorLine ? withCursor(line, column, s) : line);
  let first = 0;
  if (shown.length > COMPOSER_MAX_LINES) {
    first = Math.min(
      Math.max(0, cursorLine - Math.floor(COMPOSER_MAX_LINES / 2)),
      shown.length - COMPOSER_MAX_LINES,
    );
  }
  const window = shown.slice(first, first + COMPOSER_MAX_LINES);
  const empty = text === "" && props.placeholder;
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderDimColor={s.color}
      width={props.width}
      paddingX={1}
    >
      {first > 0 && <Text>{s.dim(`  ↑ ${first} more line${first === 1 ? "" : "s"}`)}</Text>}
      {window.map((line, i) => (
        <Box key={i + first} flexDirection="row">
          <Text>{i + first === 0 ? s.cyan(PROMPT_MARK) : "  "}</Text>
          <Box width={Math.max(2, props.width - 6)}>
            <Text>{empty ? `${line}${s.dim(props.placeholder!)}` : line}</Text>
          </Box>
        </Box>
      ))}
      {first + COMPOSER_MAX_LINES < shown.length && (
        <Text>{s.dim(`  ↓ ${shown.length - first - COMPOSER_MAX_LINES} more lines`)}</Text>
      )}
    </Box>
  );
}
