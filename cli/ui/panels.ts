/**
 * Text of the informational panels and lines: `/help`, `/cost`, compaction reports and the
 * replay of a resumed conversation.
 *
 * @module
 */
import type { Message } from "../../providers/types.ts";
import type { BackendInfo } from "./backend.ts";
import type { McpPromptView, McpResourceView, McpServerView } from "./hooks.ts";
import { storedUserText } from "./backend.ts";
import type { SlashItem } from "./overlays.ts";
import { compactTrigger, formatCost, formatTokens } from "./status.ts";
import type { NewItem } from "./transcript.ts";
import type { UsageMeter } from "./usage.ts";
import { alignColumns } from "./text_util.ts";

/** The keys, for `/help`. */
export const KEY_HELP: readonly [string, string][] = [
  ["Enter", "send (while a turn runs: queue)"],
  ["\\ Enter, Alt-Enter, Ctrl-J", "new line"],
  ["↑ ↓", "move between lines, then through history"],
  ["Tab", "complete a /command or @path"],
  ["Shift+Tab", "next permission mode: ask → accept-edits → auto"],
  ["Esc", "close a menu or panel; deny an approval"],
  ["Ctrl-C", "cancel the running turn (at an approval: deny and stop); twice to exit"],
  ["PgUp PgDn", "scroll a panel or the diff of an approval"],
  ["Ctrl-D", "exit (on an empty prompt)"],
  ["Ctrl-O", "show reasoning in full / collapse it"],
  ["Ctrl-T", "open the next running subagent's card (its tools and cost), then all, then none"],
  ["Ctrl-A Ctrl-E Ctrl-U Ctrl-K Ctrl-W", "line start, end, delete to start, to end, word"],
];

/** The widest label column of `/help`; longer names and hints are cut. */
const HELP_LABEL_COLUMNS = 40;

/** `/help`: commands by source, then keys and `@` references, descriptions in one column. */
export function helpLines(catalog: readonly SlashItem[]): string[] {
  const lines: string[] = [];
  const section = (title: string, items: readonly SlashItem[]) => {
    if (!items.length) return;
    if (lines.length) lines.push("");
    lines.push(title);
    const rows = alignColumns(
      items.map((c) => ({
        label: `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`,
        detail: c.description,
      })),
      HELP_LABEL_COLUMNS,
      "wrap",
    );
    for (const row of rows) {
      lines.push(...`${row.label}  ${row.detail}`.split("\n").map((l) => `  ${l}`));
    }
  };
  section("Commands", catalog.filter((c) => c.source === "builtin"));
  section("Custom commands", catalog.filter((c) => c.source === "custom"));
  section("MCP prompts", catalog.filter((c) => c.source === "mcp"));
  section("Subagent profiles", catalog.filter((c) => c.source === "profile"));
  lines.push("", "Keys");
  const keys = alignColumns(
    KEY_HELP.map(([label, detail]) => ({ label, detail })),
    HELP_LABEL_COLUMNS,
    "wrap",
  );
  for (const row of keys) {
    lines.push(...`${row.label}  ${row.detail}`.split("\n").map((l) => `  ${l}`));
  }
  lines.push(
    "",
    "References",
    "  @path        attach a file or list a directory (only if it exists)",
    "  @server:uri  attach an MCP resource",
  );
  return lines;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** `/cost`. */
export function costLines(meter: UsageMeter, info: BackendInfo): string[] {
  const t = meter.totals;
  const ratio = t.promptTokens ? Math.round((t.cacheHitTokens / t.promptTokens) * 100) : 0;
  const trigger = compactTrigger(info.contextWindow, info.compactRatio);
  return [
    `Model: ${info.model}`,
    `Requests: ${meter.requests}`,
    `Prompt tokens: ${count(t.promptTokens)} (cache hit ${count(t.cacheHitTokens)}, ${ratio}%)`,
    `Completion tokens: ${count(t.completionTokens)}`,
    `Cost: ${
      t.cost === undefined ? "unknown (no price for this model)" : formatCost(t.cost, t.currency)
    }`,
    `Context: ${formatTokens(meter.lastPromptTokens)} of ${formatTokens(info.contextWindow)}` +
    ` · compaction at ${formatTokens(trigger)} (compact_ratio ${info.compactRatio})`,
  ];
}

/** `/mcp`: one line per server, then prompts and resources. */
export function mcpLines(
  servers: readonly McpServerView[],
  prompts: readonly McpPromptView[],
  resources: readonly McpResourceView[],
): string[] {
  const lines: string[] = [];
  if (!servers.length) lines.push("No MCP servers are configured.");
  for (const s of servers) {
    const via = s.transport ? ` · ${s.transport}` : "";
    const failure = s.error ? ` · ${s.error}` : "";
    lines.push(
      `● ${s.name} ${s.phase}${via} · ${s.tools} tools · ${s.prompts} prompts · ` +
        `${s.resources} resources${failure}`,
    );
    const link = [
      s.protocol ? `protocol ${s.protocol}` : "",
      s.listener ? `listener ${s.listener}` : "",
      s.reconnects !== undefined ? `reconnects ${s.reconnects}` : "",
    ].filter(Boolean);
    if (link.length) lines.push(`    ${link.join(" · ")}`);
    if (s.detail) lines.push(...s.detail.split("\n").map((line) => `    ${line}`));
  }
  if (prompts.length) {
    lines.push("", "Prompts");
    for (const p of prompts) {
      lines.push(`  /${p.command}${p.description ? `  —  ${p.description}` : ""}`);
    }
  }
  if (resources.length) {
    lines.push("", "Resources");
    for (const r of resources) {
      lines.push(`  @${r.server}:${r.uri}${r.name ? `  —  ${r.name}` : ""}`);
    }
  }
  return lines;
}

const REFERENCE_BLOCKS =
  /\n*<referenced-(file|directory|resource)\b[^>]*>[\s\S]*?<\/referenced-\1>/g;

/** Items that show a stored conversation: user words, answers and one line per tool call. */
export function replayItems(messages: readonly Message[], limit = 60): NewItem[] {
  const results = new Map<string, Message>();
  for (const m of messages) if (m.role === "tool" && m.toolCallId) results.set(m.toolCallId, m);
  const shown = messages.filter((m) => m.role !== "tool");
  const items: NewItem[] = [];
  const skipped = Math.max(0, shown.length - limit);
  if (skipped) items.push({ kind: "notice", level: "info", text: `… ${skipped} earlier messages` });
  for (const m of shown.slice(skipped)) {
    if (m.role === "user") {
      const text = storedUserText(m).replace(REFERENCE_BLOCKS, "").trim();
      if (text) items.push({ kind: "user", text });
    } else if (m.role === "assistant") {
      if (m.content.trim()) items.push({ kind: "assistant", markdown: m.content });
      for (const call of m.toolCalls ?? []) {
        const r = results.get(call.id);
        items.push({
          kind: "tool",
          call,
          result: { content: r?.content ?? "", isError: r?.isError },
          durationMs: 0,
        });
      }
    }
  }
  return items;
}
