/**
 * Small text helpers shared by the UI components: previews, diffs and durations.
 *
 * @module
 */
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

/** Spinner frames. */
export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
