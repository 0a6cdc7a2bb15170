/**
 * Host adjudication of a child's completion report (spec §3.11). The report's status is a
 * claim; each criterion is checked against the host's own receipts: a `verification` must name
 * a command the host recorded as executed, and it must have succeeded; `diff`/`files` must name
 * paths the host saw the child write or read; `manual` never proves itself. What the receipts
 * cannot back is downgraded to `unsatisfied` with the reason, a report holding such an item
 * cannot stay `complete`, and nothing is ever upgraded.
 *
 * @module
 */
import { resolve } from "node:path";
import type { CriterionKind, SubtaskReport, SubtaskStatus } from "./complete_subtask.ts";

/** The host's record a report is checked against. */
export interface AdjudicationReceipts {
  /** Canonical paths written. */
  written: readonly string[];
  /** Paths read, resolved against the root. */
  read?: readonly string[];
  /** Commands run, with whether they succeeded. */
  commands: readonly { command: string; ok: boolean; exitCode?: number }[];
}

/** One criterion after adjudication. */
export interface AdjudicatedCriterion {
  criterion: string;
  kind: CriterionKind;
  /** The command or paths the child cited. */
  evidence: string[];
  status: "satisfied" | "unsatisfied";
  /** Set when the host downgraded it: why the receipts do not back it. */
  downgraded?: string;
}

/** A report after adjudication. */
export interface Adjudication {
  /** What the child claimed. */
  claimed: SubtaskStatus;
  /** What the host lets stand (never above `claimed`). */
  status: SubtaskStatus;
  summary: string;
  criteria: AdjudicatedCriterion[];
  unresolved: string[];
  /** Criteria the host downgraded. */
  downgrades: number;
  /** The child claimed `complete` and the host did not let it stand. */
  falseCompletion: boolean;
}

function squash(command: string): string {
  return command.trim().replace(/\s+/g, " ");
}

/** Checks a report against the receipts; `root` resolves relative paths the child cited. */
export function adjudicate(
  report: SubtaskReport,
  receipts: AdjudicationReceipts,
  root: string,
): Adjudication {
  const seen = new Set([...receipts.written, ...(receipts.read ?? [])]);
  const criteria = report.acceptance_criteria.map((c): AdjudicatedCriterion => {
    const evidence = c.kind === "verification"
      ? (c.command ? [c.command] : [])
      : c.kind === "manual"
      ? []
      : (c.paths ?? []);
    const item: AdjudicatedCriterion = {
      criterion: c.criterion,
      kind: c.kind,
      evidence,
      status: c.met === false ? "unsatisfied" : "satisfied",
    };
    // Only a claim can be downgraded; an item the child itself left unmet stays as it said.
    if (item.status === "unsatisfied") return item;
    const reason = unbacked(c.kind, evidence, receipts, seen, root);
    return reason ? { ...item, status: "unsatisfied", downgraded: reason } : item;
  });
  const downgrades = criteria.filter((c) => c.downgraded).length;
  const unmet = criteria.some((c) => c.status === "unsatisfied");
  const status: SubtaskStatus = report.status === "complete" && unmet ? "partial" : report.status;
  return {
    claimed: report.status,
    status,
    summary: report.summary,
    criteria,
    unresolved: report.unresolved ?? [],
    downgrades,
    falseCompletion: report.status === "complete" && status !== "complete",
  };
}

/** Why the receipts do not back a claimed criterion; undefined when they do. */
function unbacked(
  kind: CriterionKind,
  evidence: readonly string[],
  receipts: AdjudicationReceipts,
  seen: ReadonlySet<string>,
  root: string,
): string | undefined {
  if (kind === "manual") return "manual criteria never prove themselves";
  if (evidence.length === 0) {
    return kind === "verification" ? "no command cited" : "no path cited";
  }
  if (kind === "verification") {
    const cited = squash(evidence[0]);
    const runs = receipts.commands.filter((r) => squash(r.command) === cited);
    if (runs.length === 0) return `the host recorded no run of \`${evidence[0]}\``;
    // The latest run is the one a verification stands on.
    const last = runs.at(-1)!;
    if (!last.ok) {
      return `\`${evidence[0]}\` failed${
        last.exitCode === undefined ? "" : ` (exit ${last.exitCode})`
      }`;
    }
    return undefined;
  }
  const missing = evidence.filter((p) => !seen.has(resolve(root, p)));
  if (missing.length === 0) return undefined;
  return `the host saw no write or read of ${missing.join(", ")}`;
}
