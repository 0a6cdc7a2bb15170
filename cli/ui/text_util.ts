/**
 * Small text helpers shared by the UI components: previews, diffs and durations.
 *
 * @module
 */
import stringWidth from "string-width";
import type { ToolResult } from "../../tools/types.ts";
import type { Styles } from "./style.ts";

/** `850ms`, `3.2s`, `1m 04s`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${m}m ${String(s).padStart(2, "0")}s`;
}

/** The first `max` non-empty lines of a result, with a count of the rest. */
export function resultPreview(result: ToolResult, max: number): string[] {
  const lines = result.content.replace(/\s+$/, "").split("\n");
  while (lines.length && lines[0].trim() === "") lines.shift();
  if (lines.length === 0) return ["(no output)"];
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max), `… +${lines.length - max} lines`];
}

/** A unified diff painted line by line, file headers dropped, at most `max` lines. */
export function diffLines(diff: string, s: Styles, max: number): string[] {
  const body = diff.split("\n").filter((line) =>
    !/^(Index: |={3,}|--- |\+\+\+ )/.test(line) && line !== "\\ No newline at end of file"
  );
  while (body.length && body.at(-1) === "") body.pop();
  const shown = body.slice(0, max).map((line) => {
    if (line.startsWith("@@")) return s.cyan(line);
    if (line.startsWith("+")) return s.green(line);
    if (line.startsWith("-")) return s.red(line);
    return s.dim(line);
  });
  if (body.length > max) shown.push(s.dim(`… +${body.length - max} lines`));
  return shown;
}

/** Whether text looks like a unified diff. */
export function looksLikeDiff(text: string): boolean {
  return /^@@ .* @@/m.test(text) && /^[+-]/m.test(text);
}

/**
 * Rows of a list with their details in one column: labels padded to the widest label of the
 * whole list (so the column does not move while scrolling), but at most `maxLabel` columns.
 * A longer label is cut with `…` (`overflow: "cut"`, for one-line rows), or kept whole with
 * its detail moved to the next line at the column (`"wrap"`: the label then ends in a line
 * break and the column's indent). Widths are terminal columns (CJK and emoji count double).
 */
export function alignColumns(
  rows: readonly { label: string; detail?: string }[],
  maxLabel: number,
  overflow: "cut" | "wrap" = "cut",
): { label: string; detail?: string }[] {
  const fits = rows.map((r) => stringWidth(r.label)).filter((w) => w <= maxLabel);
  const widest = overflow === "wrap"
    ? Math.max(0, ...fits)
    : Math.max(0, ...rows.map((r) => stringWidth(r.label)));
  const column = Math.max(1, Math.min(widest, maxLabel));
  return rows.map((row) => {
    let label = row.label;
    if (stringWidth(label) > column) {
      if (overflow === "wrap") {
        return { ...row, label: row.detail ? `${label}\n${" ".repeat(column)}` : label };
      }
      let cut = "";
      for (const ch of label) {
        if (stringWidth(cut + ch) > column - 1) break;
        cut += ch;
      }
      label = `${cut}…`;
    }
    return {
      ...row,
      label: row.detail ? label + " ".repeat(column - stringWidth(label)) : label,
    };
  });
}

/** Spinner frames. */
export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
