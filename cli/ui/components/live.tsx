/**
 * The live tail: the part of the answer still being written, the current reasoning, running
 * tools and queued prompts. It is kept shorter than the terminal so redrawing it never
 * scrolls (which is what makes other terminal UIs flicker).
 *
 * @module
 */
import { Box, Text } from "ink";
import { type ReactNode, useRef } from "react";
import { LiveMarkdown } from "../live_markdown.ts";
import { wrapLines } from "../markdown.ts";
import type { Styles } from "../style.ts";
import { formatElapsed } from "../text_util.ts";
import { CLOSED, liveCardLines } from "../subagent_cards.ts";
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

/**
 * Keeps the last `max` lines, marking what was cut. `hidden` more lines, already left out of
 * `lines`, count as cut too.
 */
export function lastLines(lines: string[], max: number, s: Styles, hidden = 0): string[] {
  if (hidden === 0 && lines.length <= max) return lines;
  const keep = Math.max(1, max - 1);
  return [s.dim(`… ${hidden + lines.length - keep} lines above`), ...lines.slice(-keep)];
}

/** The live tail. */
export function LiveTail(props: LiveTailProps): ReactNode {
  const { live, width, styles: s } = props;
  // Keeps the rendered stable part of the open block between frames.
  const markdown = useRef<LiveMarkdown>(null);
  markdown.current ??= new LiveMarkdown();
  const budget = Math.max(1, props.maxLines - 1);
  let hidden = 0;
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
    const text = markdown.current.render(live.text, { width, styles: s, keep: budget });
    if (text.hidden > 0) {
      // Whatever came before is cut as well: count it and drop it.
      hidden = text.hidden + blocks.reduce((n, b) => n + b.length + 1, 0);
      blocks.length = 0;
    }
    blocks.push(text.lines);
  }
  for (const tool of live.tools) {
    const lines = [
      `${s.yellow("◐")} ${toolHeader(tool.call, s)} ${
        s.dim(formatElapsed(props.now - tool.startedAt))
      }`,
    ];
    // Within the tail's budget below the card's header, the queued prompts' lines kept, so the
    // header stays on screen however many children or items the card lists.
    const room = budget - 1 - 2 * props.queued.length;
    const cards = liveCardLines(tool, live.open ?? CLOSED, room, s);
    // The children's cards replace the progress line: each has its own activity and spend.
    if (cards.length) lines.push(...cards);
    else if (tool.progress) lines.push(s.dim(`  ⎿ ${tool.progress.split("\n")[0]}`));
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
      {lastLines(lines, budget, s, hidden).map((line, i) => (
        <Text key={i} wrap="truncate-end">{line || " "}</Text>
      ))}
    </Box>
  );
}
