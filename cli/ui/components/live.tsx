/**
 * The live tail: the part of the answer still being written, the current reasoning, running
 * tools and queued prompts. It is kept shorter than the terminal so redrawing it never
 * scrolls (which is what makes other terminal UIs flicker).
 *
 * @module
 */
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { renderMarkdown, wrapLines } from "../markdown.ts";
import type { Styles } from "../style.ts";
import { formatElapsed } from "../text_util.ts";
import type { LiveState } from "../transcript.ts";
import { toolHeader } from "./items.tsx";

/** Props of {@link LiveTail}. */
export interface LiveTailProps {
  live: LiveState;
  queued: readonly string[];
  width: number;
  /** Most lines the tail may take. */
  maxLines: number;
  now: number;
  styles: Styles;
}

/** Keeps the last `max` lines, marking what was cut. */
export function lastLines(lines: string[], max: number, s: Styles): string[] {
  if (lines.length <= max) return lines;
  const keep = Math.max(1, max - 1);
  return [s.dim(`… ${lines.length - keep} lines above`), ...lines.slice(-keep)];
}

/** The live tail. */
export function LiveTail(props: LiveTailProps): ReactNode {
  const { live, width, styles: s } = props;
  const blocks: string[][] = [];
  if (live.reasoning) {
    const text = live.reasoning.trim().split("\n").slice(-3).join("\n");
    const elapsed = live.reasoningStartedAt !== undefined
      ? ` ${formatElapsed(props.now - live.reasoningStartedAt)}`
      : "";
    blocks.push([
      s.dim(s.italic(`∴ Thinking…${elapsed}`)),
      ...wrapLines(text, Math.max(4, width - 2)).slice(-3).map((l) => s.dim(`  ${l}`)),
    ]);
  }
  if (live.text.trim()) {
    blocks.push(renderMarkdown(live.text, { width, styles: s }).split("\n"));
  }
  for (const tool of live.tools) {
    const lines = [
      `${s.yellow("◐")} ${toolHeader(tool.call, s)} ${
        s.dim(formatElapsed(props.now - tool.startedAt))
      }`,
    ];
    if (tool.progress) lines.push(s.dim(`  ⎿ ${tool.progress.split("\n")[0]}`));
    blocks.push(lines);
  }
  for (const q of props.queued) {
    blocks.push([s.dim(`⏳ queued: ${q.split("\n")[0]}`)]);
  }
  if (blocks.length === 0) return null;
  // Blocks are separated by a blank line; the budget keeps the newest lines.
  const lines = blocks.flatMap((b, i) => i === 0 ? b : ["", ...b]);
  return (
    <Box flexDirection="column" marginTop={1}>
      {lastLines(lines, Math.max(1, props.maxLines - 1), s).map((line, i) => (
        <Text key={i} wrap="truncate-end">{line || " "}</Text>
      ))}
    </Box>
  );
}
