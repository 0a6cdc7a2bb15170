/**
 * The activity line above the composer and the status line below it.
 *
 * @module
 */
import { Text } from "ink";
import type { ReactNode } from "react";
import { fitStatus, type StatusInfo, statusSegments, truncate } from "../status.ts";
import type { Styles } from "../style.ts";
import { formatElapsed, SPINNER } from "../text_util.ts";

/** Model, context use, cache and cost, fitted to the width. */
export function StatusLine(props: { info: StatusInfo; width: number; styles: Styles }): ReactNode {
  const s = props.styles;
  const parts = fitStatus(statusSegments(props.info), Math.max(1, props.width - 1)).map((seg) =>
    seg.key === "model"
      ? s.cyan(seg.text)
      : seg.key === "break"
      ? s.yellow(seg.text)
      : s.dim(seg.text)
  );
  return <Text wrap="truncate-end">{parts.join(s.dim(" · "))}</Text>;
}

/** What is running, with a spinner, elapsed time and the cancel hint; or a transient hint. */
export function ActivityLine(props: {
  busy?: { label: string; startedAt: number };
  hint?: string;
  tick: number;
  now: number;
  width: number;
  styles: Styles;
  /** Whether a running call shows subagent cards, which Ctrl-T opens. */
  cards?: boolean;
}): ReactNode {
  const s = props.styles;
  if (props.busy) {
    const frame = SPINNER[props.tick % SPINNER.length];
    const text = `${frame} ${props.busy.label}… ${formatElapsed(props.now - props.busy.startedAt)}`;
    const hint = props.hint ??
      (props.cards ? "ctrl-t cards · ctrl-c to cancel" : "ctrl-c to cancel");
    return (
      <Text wrap="truncate-end">
        {s.yellow(truncate(text, props.width))}
        {s.dim(` · ${hint}`)}
      </Text>
    );
  }
  if (props.hint) return <Text wrap="truncate-end">{s.yellow(props.hint)}</Text>;
  return null;
}
