/**
 * `complete_subtask` (spec §3.11): how a writing child ends. It hands in its status, summary,
 * the acceptance criteria it was asked to meet (each citing the command it ran or the paths it
 * changed) and what is unresolved. The report is a claim, not a verdict: the runner records it
 * from the call's result and {@linkcode adjudicate} checks it against the host's receipts
 * before the parent sees it.
 *
 * @module
 */
import { resolve } from "node:path";
import { z } from "zod";
import { defineTool } from "../../tools/define.ts";
import type { Tool, ToolResult } from "../../tools/types.ts";
import type { AgentEvent } from "../agent/events.ts";

/** How a child says its task went. */
export type SubtaskStatus = "complete" | "partial" | "blocked";

/** What kind of evidence a criterion cites. */
export type CriterionKind = "verification" | "diff" | "files" | "manual";

/** One acceptance criterion as the child reports it. */
export interface ReportedCriterion {
  criterion: string;
  kind: CriterionKind;
  /** For `verification`: the command it ran. */
  command?: string;
  /** For `diff` / `files`: the paths it changed or read. */
  paths?: string[];
  /** Whether the child says it is met (default: met). */
  met?: boolean;
}

/** A `complete_subtask` report, validated, before adjudication. */
export interface SubtaskReport {
  status: SubtaskStatus;
  summary: string;
  acceptance_criteria: ReportedCriterion[];
  unresolved?: string[];
}

const criterion = z.object({
  criterion: z.string(),
  kind: z.enum(["verification", "diff", "files", "manual"]),
  command: z.string().optional(),
  paths: z.array(z.string()).optional(),
  met: z.boolean().optional(),
});

const input = z.object({
  status: z.enum(["complete", "partial", "blocked"]),
  summary: z.string(),
  acceptance_criteria: z.array(criterion),
  unresolved: z.array(z.string()).optional(),
});

const DESCRIPTION =
  "End your task with this report. Cite for each acceptance criterion the exact command you ran " +
  "(verification) or the paths you changed (diff, files); the host checks them against what it " +
  "saw you run and write, and marks unbacked ones unsatisfied. manual never counts as proof.";

/** The `complete_subtask` tool of a writing child. */
export function completeSubtaskTool(): Tool {
  return defineTool({
    name: "complete_subtask",
    description: DESCRIPTION,
    input,
    readOnly: true,
    access: () => ({ rule: "complete_subtask" }),
    run(args): Promise<ToolResult> {
      return Promise.resolve({
        content: "Report received. End now with a one-line final message.",
        meta: { completion: args satisfies SubtaskReport },
      });
    },
  }) as Tool;
}

/** What one of a child's finished tool calls tells the runner's receipts. */
export interface Observed {
  /** A path `read_file` read, resolved against the root. */
  read?: string;
  /** A `complete_subtask` report. */
  report?: SubtaskReport;
  /** Runs of the child's own children (`meta.subagents` of its delegation calls). */
  nested: unknown[];
}

/** Reads one `tool_end` of a child for its receipts. */
export function observe(event: Extract<AgentEvent, { type: "tool_end" }>, root: string): Observed {
  const out: Observed = { nested: [] };
  const meta = event.result.meta;
  if (event.call.name === "complete_subtask" && !event.result.isError) {
    const report = meta?.completion as SubtaskReport | undefined;
    if (report) out.report = report;
  }
  if (event.call.name === "read_file" && !event.result.isError) {
    const path = argument(event.call.arguments, "path");
    if (path) out.read = resolve(root, path);
  }
  if (Array.isArray(meta?.subagents)) out.nested.push(...meta.subagents);
  return out;
}

function argument(args: string, key: string): string | undefined {
  try {
    const value = (JSON.parse(args) as Record<string, unknown>)[key];
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
