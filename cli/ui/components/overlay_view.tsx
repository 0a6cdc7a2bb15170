/**
 * Overlay views: the approval prompt, pickers, help and MCP panels (modal), and the slash and
 * `@` completion lists (input-owned, drawn under the composer).
 *
 * @module
 */
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { renderMarkdown, wrapLines } from "../markdown.ts";
import { APPROVAL_CHOICES, type Overlay, PLAN_CHOICES } from "../overlays.ts";
import type { Styles } from "../style.ts";
import { alignColumns, diffLines, looksLikeDiff } from "../text_util.ts";

/** Most rows of a list overlay. */
export const LIST_ROWS = 8;
/** Most lines of an approval's detail. */
const DETAIL_LINES = 14;
/** Fewest diff lines an approval shows, however short the terminal. */
const MIN_DIFF_ROWS = 4;

/** The visible window of a list so that `selected` is on screen. */
export function listWindow(count: number, selected: number, rows: number): [number, number] {
  if (count <= rows) return [0, count];
  const start = Math.min(Math.max(0, selected - Math.floor(rows / 2)), count - rows);
  return [start, start + rows];
}

function ListRows(props: {
  rows: { label: string; detail?: string }[];
  selected: number;
  width: number;
  styles: Styles;
  /** Most rows, scroll markers included (the layout's budget). */
  maxRows: number;
}): ReactNode {
  const s = props.styles;
  // The arrow and its space, then the label column; the rest is left for the details.
  const rows = alignColumns(props.rows, Math.max(12, Math.floor((props.width - 2) * 0.45)));
  const budget = Math.max(1, props.maxRows);
  // A cut list needs a row for each marker; below three rows only the entries are shown.
  const fits = rows.length <= Math.min(LIST_ROWS, budget);
  const markers = !fits && budget >= 3;
  const window = fits ? rows.length : Math.min(LIST_ROWS, markers ? budget - 2 : budget);
  const [from, to] = listWindow(rows.length, props.selected, window);
  return (
    <Box flexDirection="column">
      {markers && from > 0 && <Text>{s.dim(`  ↑ ${from} more`)}</Text>}
      {rows.slice(from, to).map((row, i) => {
        const active = from + i === props.selected;
        const label = active ? s.cyan(s.bold(`› ${row.label}`)) : `  ${row.label}`;
        return (
          <Text key={from + i} wrap="truncate-end">
            {label}
            {row.detail ? s.dim(`  ${row.detail}`) : ""}
          </Text>
        );
      })}
      {markers && to < rows.length && <Text>{s.dim(`  ↓ ${rows.length - to} more`)}</Text>}
    </Box>
  );
}

/** A scrolled window of lines with markers for what is above and below. */
function ScrollLines(
  props: { lines: readonly string[]; offset: number; rows: number; styles: Styles },
): ReactNode {
  const s = props.styles;
  const start = Math.max(0, Math.min(props.offset, props.lines.length - props.rows));
  const end = Math.min(props.lines.length, start + props.rows);
  return (
    <Box flexDirection="column">
      {start > 0 && <Text>{s.dim(`↑ ${start} more`)}</Text>}
      {props.lines.slice(start, end).map((line, i) => (
        <Text key={start + i} wrap="truncate-end">{line || " "}</Text>
      ))}
      {end < props.lines.length && <Text>{s.dim(`↓ ${props.lines.length - end} more`)}</Text>}
    </Box>
  );
}

function Panel(props: {
  title: string;
  footer: string;
  color: string;
  width: number;
  styles: Styles;
  children: ReactNode;
}): ReactNode {
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={props.styles.color ? props.color : undefined}
      paddingX={1}
      width={props.width}
    >
      {/* One row each, as the views count them. */}
      <Text wrap="truncate-end">{props.styles.bold(props.title)}</Text>
      {props.children}
      <Text wrap="truncate-end">{props.styles.dim(props.footer)}</Text>
    </Box>
  );
}

/**
 * The approval prompt: the summary (or, for a command, the command once with where it runs
 * and its sandbox), the diff an edit would make in a window that PgUp PgDn scroll, the
 * policy's notes, what a session grant would cover, and the choices.
 */
function ApprovalView(props: {
  overlay: Extract<Overlay, { kind: "approval" }>;
  width: number;
  maxLines: number;
  styles: Styles;
}): ReactNode {
  const { overlay, width, styles: s } = props;
  const inner = Math.max(8, width - 4);
  const r = overlay.request;
  const preview = overlay.preview ?? {};
  const command = preview.command?.trim();
  // A write-scope request's summary names the directories, so it stays (with the command).
  const head = command && r.kind === "tool"
    ? wrapLines(`$ ${command}`, inner).slice(0, DETAIL_LINES).map((l) => s.bold(l))
    : [s.bold(r.summary)];
  const place = [preview.cwd && `in ${preview.cwd}`, preview.sandbox].filter(Boolean).join(" · ");
  const where = command && place ? [place] : [];
  // The gate's detail starts with the command for `bash`: shown above already, not again.
  const commandLines = new Set((command ?? "").split("\n").map((l) => l.trim()));
  const detailText = (r.detail ?? "").split("\n").filter((line) => {
    const text = line.trim().replace(/^Command: /, "");
    return text !== "" && !commandLines.has(text) && !r.summary.includes(text);
  }).join("\n");
  const detail = detailText
    ? looksLikeDiff(detailText)
      ? diffLines(detailText, s, DETAIL_LINES)
      : wrapLines(detailText, inner).slice(0, DETAIL_LINES)
    : [];
  const scope = r.sessionScope && command && r.sessionScope.endsWith(`: ${command}`)
    ? r.sessionScope.slice(0, -(command.length + 2))
    : r.sessionScope;
  const diff = preview.diff ? diffLines(preview.diff, s, Number.MAX_SAFE_INTEGER) : [];
  // Everything but the diff: borders, title, footer, choices and the lines above.
  const fixed = 2 + 1 + 1 + 1 + APPROVAL_CHOICES.length + head.length + where.length +
    detail.length + (scope ? 1 : 0) + (preview.note ? 1 : 0);
  // What the budget leaves; in a short terminal fewer than MIN_DIFF_ROWS, but never none.
  const diffRows = Math.max(1, props.maxLines - fixed - 2);
  const scrolls = diff.length > diffRows;
  return (
    <Panel
      title={r.kind === "write_scope"
        ? "Allow writing outside the workspace?"
        : command
        ? "Run this command?"
        : "Allow this?"}
      footer={`↑↓ Enter to choose · 1 2 3 · Esc denies${
        scrolls ? " · PgUp PgDn scroll the diff" : ""
      }`}
      color="yellow"
      width={width}
      styles={s}
    >
      {head.map((line, i) => <Text key={`h${i}`} wrap="truncate-end">{line}</Text>)}
      {where.map((line, i) => <Text key={`w${i}`} wrap="truncate-end">{s.dim(line)}</Text>)}
      {diff.length > 0 && (
        <ScrollLines lines={diff} offset={overlay.offset ?? 0} rows={diffRows} styles={s} />
      )}
      {preview.note && <Text wrap="truncate-end">{s.dim(`No diff: ${preview.note}`)}</Text>}
      {detail.map((line, i) => <Text key={`d${i}`} wrap="truncate-end">{line}</Text>)}
      {scope && <Text wrap="truncate-end">{s.dim(`For this session: ${scope}`)}</Text>}
      <ChoiceRows choices={APPROVAL_CHOICES} selected={overlay.selected} styles={s} />
    </Panel>
  );
}

/** The numbered choices of an approval prompt, the selected one marked. */
function ChoiceRows(props: {
  choices: readonly { choice: string; label: string; keys: readonly string[] }[];
  selected: number;
  styles: Styles;
}): ReactNode {
  const s = props.styles;
  return (
    <Box flexDirection="column" marginTop={1}>
      {props.choices.map((c, i) => {
        const text = `${c.keys[0]}. ${c.label}`;
        return (
          <Text key={c.choice} wrap="truncate-end">
            {i === props.selected ? s.cyan(s.bold(`› ${text}`)) : `  ${text}`}
          </Text>
        );
      })}
    </Box>
  );
}

/**
 * A plan's approval (`exit_plan_mode`): the plan rendered as Markdown in a window that PgUp
 * PgDn scroll, then Approve / Keep planning. Nothing of the call's preview applies to it.
 */
function PlanApprovalView(props: {
  overlay: Extract<Overlay, { kind: "approval" }>;
  width: number;
  maxLines: number;
  styles: Styles;
}): ReactNode {
  const { overlay, width, styles: s } = props;
  const inner = Math.max(8, width - 4);
  const lines = renderMarkdown(overlay.request.detail ?? "", { width: inner, styles: s })
    .split("\n");
  // Borders, title, footer, the blank line and the choices.
  const rows = Math.max(MIN_DIFF_ROWS, props.maxLines - (2 + 1 + 1 + 1 + PLAN_CHOICES.length) - 2);
  const scrolls = lines.length > rows;
  return (
    <Panel
      title="Approve this plan?"
      footer={`↑↓ Enter to choose · 1 2 · Esc keeps planning${
        scrolls ? " · PgUp PgDn scroll the plan" : ""
      }`}
      color="yellow"
      width={width}
      styles={s}
    >
      <ScrollLines lines={lines} offset={overlay.offset ?? 0} rows={rows} styles={s} />
      <ChoiceRows choices={PLAN_CHOICES} selected={overlay.selected} styles={s} />
    </Panel>
  );
}

/** Renders any overlay. */
export function OverlayView(
  props: { overlay: Overlay; width: number; maxLines: number; styles: Styles },
): ReactNode {
  const { overlay, width, styles: s } = props;
  const inner = Math.max(8, width - 4);
  switch (overlay.kind) {
    case "approval":
      if (overlay.request.kind === "plan") {
        return (
          <PlanApprovalView
            overlay={overlay}
            width={width}
            maxLines={props.maxLines}
            styles={s}
          />
        );
      }
      return <ApprovalView overlay={overlay} width={width} maxLines={props.maxLines} styles={s} />;
    case "help":
    case "mcp":
      return (
        <Panel
          title={overlay.kind === "help" ? "Help" : "MCP servers"}
          footer="↑↓ PgUp PgDn to scroll · Esc to close"
          color="cyan"
          width={width}
          styles={s}
        >
          <ScrollLines
            lines={overlay.lines}
            offset={overlay.offset}
            rows={Math.max(1, props.maxLines - 6)}
            styles={s}
          />
        </Panel>
      );
    case "picker":
      return (
        <Panel
          title={overlay.title}
          footer="↑↓ to move · Enter to choose · Esc to cancel"
          color="cyan"
          width={width}
          styles={s}
        >
          <ListRows
            rows={overlay.items.map((item) => ({
              label: `${item.label}${item.current ? " (current)" : ""}`,
              detail: item.detail,
            }))}
            selected={overlay.selected}
            width={inner}
            styles={s}
            maxRows={props.maxLines - 4}
          />
        </Panel>
      );
    case "slash":
      return (
        <ListRows
          rows={overlay.items.map((item) => ({
            label: `/${item.name}${item.argumentHint ? ` ${item.argumentHint}` : ""}`,
            detail: item.description,
          }))}
          selected={overlay.selected}
          width={width}
          styles={s}
          maxRows={props.maxLines}
        />
      );
    case "mention":
      return (
        <ListRows
          rows={overlay.items.map((item) => ({ label: `@${item.value}`, detail: item.detail }))}
          selected={overlay.selected}
          width={width}
          styles={s}
          maxRows={props.maxLines}
        />
      );
  }
}
