/**
 * Finished transcript items, printed once into the scrollback.
 *
 * @module
 */
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { describeCall } from "../../render_plain.ts";
import { renderMarkdown, wrapLines } from "../markdown.ts";
import type { Styles } from "../style.ts";
import { diffLines, formatElapsed, resultPreview } from "../text_util.ts";
import { type Cards, finishedCardLines } from "../subagent_cards.ts";
import type { Item } from "../transcript.ts";
import type { ToolCall } from "../../../providers/types.ts";
import type { ToolResult } from "../../../tools/types.ts";

/** Props shared by item views. */
export interface ItemProps {
  width: number;
  styles: Styles;
}

/** The one-line header of a tool call: `● name summary`. */
export function toolHeader(call: ToolCall, s: Styles): string {
  const described = describeCall(call.name, call.arguments);
  const rest = described.slice(call.name.length);
  return `${s.bold(call.name)}${s.dim(rest)}`;
}

/** A finished tool call with its result, and a diff for edits. */
export function ToolCard(
  props: ItemProps & {
    call: ToolCall;
    result: ToolResult;
    durationMs: number;
    permission?: string;
    cards?: Cards;
  },
): ReactNode {
  const s = props.styles;
  const cards = props.cards
    ? finishedCardLines(props.cards, subagentStatuses(props.result), s)
    : [];
  const diff = typeof props.result.meta?.diff === "string" ? props.result.meta.diff : undefined;
  const body = props.result.isError
    ? resultPreview(props.result, 6).map((line) => s.red(line))
    : diff
    ? diffLines(diff, s, 40)
    : resultPreview(props.result, 3).map((line) => s.dim(line));
  const timing = props.durationMs >= 1000 ? s.dim(` · ${formatElapsed(props.durationMs)}`) : "";
  const permission = props.permission ? s.dim(` · ${props.permission}`) : "";
  return (
    <Box flexDirection="column" width={props.width}>
      <Text wrap="truncate-end">
        {props.result.isError ? s.red("●") : s.green("●")} {toolHeader(props.call, s)}
        {timing}
        {permission}
      </Text>
      <Box flexDirection="row">
        <Text>{s.dim("  ⎿ ")}</Text>
        <Box flexDirection="column" width={Math.max(4, props.width - 4)}>
          {body.map((line, i) => <Text key={i} wrap="truncate-end">{line}</Text>)}
        </Box>
      </Box>
      {cards.map((line, i) => <Text key={i} wrap="truncate-end">{line}</Text>)}
    </Box>
  );
}

/** Each subagent's status by session id, from the `task` result's `meta.subagents`. */
function subagentStatuses(result: ToolResult): Map<string, string> {
  const out = new Map<string, string>();
  const runs = result.meta?.subagents;
  if (!Array.isArray(runs)) return out;
  for (const r of runs) {
    if (r && typeof r.sessionId === "string" && typeof r.status === "string") {
      out.set(r.sessionId, r.status);
    }
  }
  return out;
}

function noticeMark(level: "info" | "warning" | "error", s: Styles): string {
  return level === "error" ? s.red("✗") : level === "warning" ? s.yellow("!") : s.dim("·");
}

const END_TEXT: Record<string, string> = {
  cancelled: "Cancelled",
  error: "Error",
  max_turns: "Stopped: reached the turn limit (raise [agent].max_turns)",
  budget_exceeded: "Stopped: over the budget",
  timeout: "Stopped: timed out",
};

/** One finished item. */
export function ItemView(props: ItemProps & { item: Item }): ReactNode {
  const { item, width } = props;
  const s = props.styles;
  switch (item.kind) {
    case "banner":
      return (
        <Box
          flexDirection="column"
          borderStyle="round"
          borderColor={s.color ? "cyan" : undefined}
          paddingX={1}
        >
          <Text>{s.bold(item.title)}</Text>
          {item.lines.map((line, i) => <Text key={i}>{s.dim(line)}</Text>)}
        </Box>
      );
    case "user":
      return (
        <Box marginTop={1} flexDirection="row">
          <Text>{s.cyan("› ")}</Text>
          <Box width={Math.max(4, width - 2)}>
            <Text>{s.bold(item.text)}</Text>
          </Box>
        </Box>
      );
    case "attachments":
      return (
        <Box flexDirection="column">
          {item.labels.map((label, i) => (
            <Text key={i} wrap="truncate-end">{s.dim(`  + ${label}`)}</Text>
          ))}
        </Box>
      );
    case "assistant":
      return (
        <Box marginTop={1}>
          <Text>{renderMarkdown(item.markdown, { width, styles: s })}</Text>
        </Box>
      );
    case "reasoning": {
      const lines = item.text.split("\n").length;
      const head = `∴ Thought for ${formatElapsed(item.durationMs)} · ${lines} line${
        lines === 1 ? "" : "s"
      }`;
      if (!item.expanded) {
        return (
          <Box marginTop={1}>
            <Text wrap="truncate-end">{s.dim(s.italic(`${head} (ctrl-o to show)`))}</Text>
          </Box>
        );
      }
      return (
        <Box marginTop={1} flexDirection="column">
          <Text>{s.dim(s.italic(head))}</Text>
          <Text>
            {s.dim(wrapLines(item.text, Math.max(4, width - 2)).map((l) => `  ${l}`).join("\n"))}
          </Text>
        </Box>
      );
    }
    case "tool":
      return (
        <Box marginTop={1}>
          <ToolCard
            call={item.call}
            result={item.result}
            durationMs={item.durationMs}
            permission={item.permission}
            {...(item.cards ? { cards: item.cards } : {})}
            width={width}
            styles={s}
          />
        </Box>
      );
    case "approval": {
      const text = item.choice === "deny" ? s.red(`✗ Denied: ${item.summary}`) : s.green(
        `✓ Allowed ${item.choice === "session" ? "for this session" : "once"}: ${item.summary}`,
      );
      return <Text wrap="truncate-end">{`  ${text}`}</Text>;
    }
    case "notice":
      return (
        <Box flexDirection="row">
          <Text>{`${noticeMark(item.level, s)} `}</Text>
          <Box width={Math.max(4, width - 2)}>
            <Text>
              {item.level === "error"
                ? s.red(item.text)
                : item.level === "warning"
                ? s.yellow(item.text)
                : s.dim(item.text)}
            </Text>
          </Box>
        </Box>
      );
    case "turn_end": {
      const text = `${END_TEXT[item.status] ?? item.status}${
        item.detail ? `: ${item.detail}` : ""
      }`;
      return (
        <Box marginTop={1}>
          <Text>{item.status === "error" ? s.red(`✗ ${text}`) : s.yellow(`⏹ ${text}`)}</Text>
        </Box>
      );
    }
    case "panel":
      return (
        <Box marginTop={1} flexDirection="column">
          <Text>{s.bold(item.title)}</Text>
          {item.lines.map((line, i) => <Text key={i}>{`  ${line}`}</Text>)}
        </Box>
      );
  }
}
