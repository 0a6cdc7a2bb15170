/**
 * Delegation counters (spec §3.17), counted from host records only: the `meta.subagents`
 * entries the delegation tools return (one per child run, nested runs included, each with the
 * host's receipts and adjudication), never from anything a model wrote.
 *
 * @module
 */

/** The counters `run --json` and the stream-json `result` line report. */
export interface DelegationCounters {
  /** Child runs at any depth. */
  subagent_runs: number;
  /** Of them, runs started by a child (depth 2 and deeper). */
  subagent_nested_runs: number;
  /** Tool calls of the children (the run's `tool_calls` includes them). */
  subagent_tool_calls: number;
  /** Files the children wrote (one per child and file). */
  subagent_mutations: number;
  /** Files written by more than one child. */
  duplicate_work_paths: number;
  /** Writers that ended with `complete_subtask`. */
  completion_reports: number;
  /** Writers that ended with prose only. */
  completions_prose_only: number;
  /** Reports that claimed `complete` and were not let stand. */
  false_completions: number;
  /** Criteria the host downgraded. */
  criterion_downgrades: number;
  /** Writes refused or landed outside a claim. */
  write_scope_violations: number;
}

/** Counters at zero. */
export function emptyCounters(): DelegationCounters {
  return {
    subagent_runs: 0,
    subagent_nested_runs: 0,
    subagent_tool_calls: 0,
    subagent_mutations: 0,
    duplicate_work_paths: 0,
    completion_reports: 0,
    completions_prose_only: 0,
    false_completions: 0,
    criterion_downgrades: 0,
    write_scope_violations: 0,
  };
}

/** Accumulates counters over a turn's tool results. */
export class DelegationTally {
  #counters: DelegationCounters = emptyCounters();
  /** How many children wrote each file. */
  #writers = new Map<string, number>();

  /** Adds the runs a tool result's `meta` reports (nothing when it reports none). */
  add(meta: Readonly<Record<string, unknown>> | undefined): void {
    const runs = meta?.subagents;
    if (!Array.isArray(runs)) return;
    const c = this.#counters;
    for (const run of runs as Record<string, unknown>[]) {
      if (!run || typeof run !== "object") continue;
      c.subagent_runs++;
      if (typeof run.depth === "number" && run.depth > 1) c.subagent_nested_runs++;
      if (typeof run.toolCalls === "number") c.subagent_tool_calls += run.toolCalls;
      const written = Array.isArray(run.written) ? run.written as string[] : [];
      c.subagent_mutations += written.length;
      for (const path of new Set(written)) {
        const n = (this.#writers.get(path) ?? 0) + 1;
        this.#writers.set(path, n);
        if (n === 2) c.duplicate_work_paths++;
      }
      if (run.report === "reported") c.completion_reports++;
      if (run.report === "prose") c.completions_prose_only++;
      if (run.falseCompletion === true) c.false_completions++;
      if (typeof run.downgrades === "number") c.criterion_downgrades += run.downgrades;
      if (Array.isArray(run.refused)) c.write_scope_violations += run.refused.length;
    }
  }

  /** The counters so far. */
  get counters(): DelegationCounters {
    return { ...this.#counters };
  }
}
