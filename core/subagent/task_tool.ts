/**
 * The `task` tool: delegation from the model (spec §3.10, §3.17). One task, or several in
 * parallel (`tasks`), each compiled into a {@linkcode ProfileExecSpec} for the one runner. The
 * child's final answer comes back as the tool result, followed by the host's receipts of what
 * it wrote and ran; like any result it is bounded and pageable with `session:tool_result`.
 * Profile names never enter the schema, so the prompt prefix stays stable as profiles change.
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "../../tools/define.ts";
import type { Tool, ToolContext, ToolResult } from "../../tools/types.ts";
import type { AgentEvent, UsageTotals } from "../agent/events.ts";
import { addUsage, emptyTotals } from "../agent/cost.ts";
import type { Profile, ProfileExecSpec, SubagentResult, SubagentRunner } from "./runner.ts";
import { SubagentRefusal } from "./runner.ts";
import { adjudicate, type Adjudication } from "./adjudicate.ts";
import type { SubtaskReport } from "./complete_subtask.ts";
import {
  type FleetItemEnd,
  type FleetItemOutcome,
  type FleetItemState,
  type FleetPlan,
  fleetPreflight,
  FleetRefusal,
  FleetStore,
  runFleet,
} from "./fleet.ts";

const one = z.object({
  prompt: z.string().min(1),
  read_only: z.boolean().optional(),
  write_paths: z.array(z.string()).optional(),
  profile: z.string().optional(),
  model: z.string().optional(),
  effort: z.string().optional(),
  id: z.string().optional(),
  depends_on: z.array(z.string()).optional(),
  continue_from: z.string().optional(),
  fork_from: z.string().optional(),
});

const input = z.object({
  tasks: z.array(one).min(1).max(64),
  fail_fast: z.boolean().optional(),
});

type One = z.infer<typeof one>;

/** What the task tool needs: the runner, the parent, and profile lookup. */
export interface TaskToolOptions {
  runner: SubagentRunner;
  /** The parent agent's session and depth (0 for a top-level agent). */
  parent: { sessionId: () => string | undefined; depth: number };
  /** Looks a profile up by name (project, then user skills). */
  profile?: (name: string) => Promise<Profile | undefined>;
  /** Whether children write no transcript. */
  ephemeral?: boolean;
  /** Where fleet progress is kept for a resume (beside the parent's transcript). */
  fleetDir?: () => string | undefined;
}

const TASK_DESCRIPTION =
  "Run subagents with fresh context; get their reports. Worth it for broad searches/reviews " +
  "(read_only) or independent changes in parallel (disjoint write_paths), not one read or small " +
  "edit. A child sees only its prompt: give paths and what done means. depends_on: start after " +
  "those ids; a failure skips dependents.";

/** The `task` tool over a runner. */
export function taskTool(opts: TaskToolOptions): Tool {
  return defineTool({
    name: "task",
    description: TASK_DESCRIPTION,
    input,
    readOnly: false,
    // Delegating does nothing by itself: every call a child makes passes the same permission
    // policy and sandbox as the parent's own.
    access: () => ({ rule: "task", readOnly: true }),
    async run(args, ctx): Promise<ToolResult> {
      const all: One[] = args.tasks;
      let plan: FleetPlan;
      try {
        plan = fleetPreflight(all);
      } catch (error) {
        if (error instanceof FleetRefusal) return { content: error.message, isError: true };
        throw error;
      }
      const fleet = all.length > 1;
      const store = fleet ? await FleetStore.open<Outcome>(opts.fleetDir?.(), args) : undefined;
      const kept = store?.finished(plan.ids);
      const outcomes = await runFleet<Outcome>({
        plan,
        failFast: args.fail_fast,
        signal: ctx.signal,
        finished: kept,
        run: async (i) => {
          const item = fleet ? plan.ids[i] : undefined;
          const outcome = await runOne(all[i], item, opts, ctx);
          const end = endOf(outcome);
          if (end.state === "done") await store?.save(plan.ids[i], { result: outcome, end });
          return { result: outcome, end };
        },
        onState: (i, state, info) => {
          if (!fleet) return;
          ctx.progress(`${plan.ids[i]}: ${state}`, {
            fleet: fleetDetail(plan.ids[i], state, info),
          });
        },
      });
      // A result kept from an earlier attempt was paid and counted by the run that made it.
      const usage = outcomes.reduce(
        (sum, o, i) => kept?.has(i) ? sum : addInto(sum, o.result?.result?.usage),
        emptyTotals(),
      );
      const parts = outcomes.map((o, i) => render(o, fleet ? plan.ids[i] : undefined));
      if (fleet) parts.unshift(fleetLine(plan.ids, outcomes));
      const entries = outcomes.flatMap((o, i) =>
        o.result?.result && !kept?.has(i) ? runEntries(o.result, opts.parent.depth + 1) : []
      );
      return {
        content: parts.join("\n\n"),
        isError: outcomes.every((o) => o.result?.result?.status !== "completed"),
        meta: {
          usage,
          subagents: entries,
          ...(fleet
            ? {
              fleet: outcomes.map((o, i) => ({
                item: plan.ids[i],
                state: o.state,
                ...(o.end?.status ? { status: o.end.status } : {}),
                ...(o.reason ?? o.end?.reason ? { reason: o.reason ?? o.end?.reason } : {}),
                ...(kept?.has(i) ? { resumed: true } : {}),
              })),
            }
            : {}),
        },
      };
    },
  }) as Tool;
}

/** One item's run: its result, its adjudicated report, or why it never started. */
export interface Outcome {
  result?: SubagentResult;
  /** The writer's report after adjudication; absent for read-only children and prose-only writers. */
  adjudication?: Adjudication;
  /** A writer that ended without `complete_subtask`. */
  proseOnly?: boolean;
  readOnly?: boolean;
  refusal?: string;
}

function endOf(o: Outcome): FleetItemEnd {
  if (o.refusal) return { state: "failed", reason: o.refusal };
  const r = o.result!;
  if (r.status !== "completed") {
    return { state: "failed", reason: r.error?.message ?? `the child's run ended ${r.status}` };
  }
  return { state: "done", ...(o.adjudication ? { status: o.adjudication.status } : {}) };
}

function fleetDetail(
  item: string,
  state: FleetItemState,
  info: { end?: FleetItemEnd; reason?: string; result?: Outcome },
): Record<string, unknown> {
  return {
    item,
    state,
    ...(info.end?.status ? { status: info.end.status } : {}),
    ...(info.result?.result ? { child: info.result.result.sessionId } : {}),
    ...(info.result?.result ? { usage: info.result.result.usage } : {}),
    ...(info.reason ?? info.end?.reason ? { reason: info.reason ?? info.end?.reason } : {}),
  };
}

/** What `meta.subagents` says about a run (and the runs it started), for counters. */
function runEntries(o: Outcome, depth: number): Record<string, unknown>[] {
  const r = o.result!;
  const a = o.adjudication;
  return [
    {
      sessionId: r.sessionId,
      status: r.status,
      capsuleHash: r.capsuleHash,
      depth,
      readOnly: o.readOnly === true,
      written: r.receipts.written,
      refused: r.receipts.refused,
      commands: r.receipts.commands,
      toolCalls: r.receipts.toolCalls ?? 0,
      ...(o.readOnly ? {} : { report: a ? "reported" : "prose" }),
      ...(a
        ? {
          claimed: a.claimed,
          adjudicated: a.status,
          downgrades: a.downgrades,
          falseCompletion: a.falseCompletion,
        }
        : {}),
    },
    ...((r.receipts.nested ?? []) as Record<string, unknown>[]),
  ];
}

async function runOne(
  task: One,
  item: string | undefined,
  opts: Pick<TaskToolOptions, "profile" | "parent" | "ephemeral"> & {
    runner: Pick<SubagentRunner, "run">;
  },
  ctx: Pick<ToolContext, "root" | "signal" | "progress">,
): Promise<Outcome> {
  let profile: Profile | undefined;
  if (task.profile) {
    profile = await opts.profile?.(task.profile);
    if (!profile) return { refusal: `no subagent profile is named "${task.profile}"` };
  }
  // Dependencies stay in the plan: the spec carries only the task.
  const spec: ProfileExecSpec = {
    task: task.prompt,
    readOnly: task.read_only,
    writePaths: task.write_paths,
    profile,
    model: task.model,
    effort: task.effort,
    continueFrom: task.continue_from,
    forkFrom: task.fork_from,
    ephemeral: opts.ephemeral,
    parent: { sessionId: opts.parent.sessionId(), depth: opts.parent.depth },
  };
  const readOnly = task.read_only === true || profile?.readOnly === true;
  const label = item === undefined ? "child" : item;
  const tag = item === undefined ? {} : { item };
  try {
    const it = opts.runner.run(spec, { signal: ctx.signal });
    while (true) {
      const step = await it.next();
      if (step.done) {
        const result = step.value;
        const report = result.receipts.report as SubtaskReport | undefined;
        return {
          result,
          readOnly,
          ...(report
            ? { adjudication: adjudicate(report, result.receipts, ctx.root) }
            : readOnly
            ? {}
            : { proseOnly: true }),
        };
      }
      const event = step.value;
      // Each child's own activity, tagged with its session, for front ends that show it.
      if (event.type === "tool_start") {
        ctx.progress(`${label}: ${event.call.name}`, { child: event.agentId, event, ...tag });
      } else if (event.type === "tool_end") {
        const mark = event.result.isError ? "✗" : "✓";
        ctx.progress(`${label}: ${event.call.name} ${mark}`, {
          child: event.agentId,
          event,
          ...tag,
        });
      } else if (event.type === "usage") {
        ctx.progress(`${label}: thinking`, { child: event.agentId, event, ...tag });
      }
    }
  } catch (error) {
    if (error instanceof SubagentRefusal) return { refusal: error.message, readOnly };
    throw error;
  }
}

function addInto(sum: UsageTotals, u: UsageTotals | undefined): UsageTotals {
  if (!u) return sum;
  addUsage(sum, u, u.cost);
  if (u.currency && !sum.currency) sum.currency = u.currency;
  return sum;
}

function fleetLine(ids: readonly string[], outcomes: readonly FleetItemOutcome<Outcome>[]): string {
  const items = outcomes.map((o, i) => {
    const status = o.end?.status ? ` ${o.end.status}` : "";
    return `${ids[i]}: ${o.state}${status}`;
  });
  return `Fleet: ${items.join("; ")}`;
}

function render(o: FleetItemOutcome<Outcome>, id: string | undefined): string {
  const head = id === undefined ? "" : `[task ${id}] `;
  if (o.state === "skipped" || o.state === "waiting") {
    return `${head}Skipped: ${o.reason ?? "not started"}.`;
  }
  const out = o.result!;
  if (out.refusal) return `${head}Not started: ${out.refusal}.`;
  const r = out.result!;
  // The session id is what `continue_from` and `fork_from` take.
  const lines = [
    `${head}<subagent session="${r.sessionId}" status="${r.status}" turns="${r.turns}">`,
  ];
  // The host's verdict first, then the child's own words, then what the host saw.
  const a = out.adjudication;
  if (a) {
    lines.push(
      `Adjudicated: ${a.status}${a.status === a.claimed ? "" : ` (claimed ${a.claimed})`}`,
    );
    for (const c of a.criteria) {
      const cited = c.evidence.length ? ` [${c.kind}: ${c.evidence.join(", ")}]` : ` [${c.kind}]`;
      lines.push(
        `- ${c.status}: ${c.criterion}${cited}${
          c.downgraded ? ` — downgraded: ${c.downgraded}` : ""
        }`,
      );
    }
    if (a.unresolved.length) lines.push(`Unresolved: ${a.unresolved.join("; ")}`);
    if (a.summary.trim()) lines.push(a.summary.trim());
  } else if (out.proseOnly) {
    lines.push("Adjudicated: none (prose only: no complete_subtask report)");
  }
  lines.push(r.text.trim());
  if (r.error) lines.push(`error: ${r.error.message}`);
  lines.push("</subagent>");
  const receipts: string[] = [];
  if (r.receipts.written.length) receipts.push(`wrote: ${r.receipts.written.join(", ")}`);
  if (r.receipts.commands.length) {
    receipts.push(
      `ran: ${
        r.receipts.commands.map((c) =>
          `\`${c.command}\` (${
            c.ok ? "ok" : c.exitCode === undefined ? "failed" : `exit ${c.exitCode}`
          })`
        ).join(", ")
      }`,
    );
  }
  if (r.receipts.refused.length) {
    receipts.push(`refused outside write_paths: ${r.receipts.refused.join(", ")}`);
  }
  if (receipts.length) lines.push(`Host receipts: ${receipts.join("; ")}`);
  return lines.join("\n");
}

/**
 * A user's direct run of a profile (`reasonix run "/<profile> <task>"`): the same spec, runner,
 * adjudication and receipts as a `task` call, reported as one `task` call of the run, so the
 * delegation counters show it whatever tools the agent was given (`--ablate subagent` keeps
 * this path: it is the user's delegation, not the model's).
 */
export async function* profileRun(opts: {
  runner: Pick<SubagentRunner, "run">;
  profile: Profile;
  task: string;
  root: string;
  parentSessionId?: string;
  signal: AbortSignal;
}): AsyncGenerator<AgentEvent> {
  const call = {
    id: `profile-${opts.profile.name}`,
    name: "task",
    arguments: JSON.stringify({ tasks: [{ prompt: opts.task, profile: opts.profile.name }] }),
  };
  yield { type: "tool_start", call };
  const started = performance.now();
  const progress: AgentEvent[] = [];
  const run = runOne(
    { prompt: opts.task, profile: opts.profile.name },
    undefined,
    {
      runner: opts.runner,
      profile: () => Promise.resolve(opts.profile),
      parent: { sessionId: () => opts.parentSessionId, depth: 0 },
    },
    {
      root: opts.root,
      signal: opts.signal,
      progress: (message, detail) =>
        progress.push({ type: "tool_progress", callId: call.id, message, detail }),
    },
  );
  // The child's progress arrives while it runs; hand it on as it comes.
  let outcome: Outcome | undefined;
  run.then((o) => outcome = o, () => {});
  while (outcome === undefined) {
    await Promise.race([run, new Promise((r) => setTimeout(r, 20))]);
    yield* progress.splice(0);
  }
  yield* progress.splice(0);
  const r = outcome.result;
  const usage = r?.usage ?? emptyTotals();
  if (r) {
    yield {
      type: "usage",
      turn: 0,
      usage,
      ...(usage.cost !== undefined ? { cost: usage.cost, currency: usage.currency } : {}),
      totals: usage,
      purpose: "subagent",
    } as AgentEvent;
  }
  const content = render(
    { state: endOf(outcome).state, result: outcome, end: endOf(outcome) },
    undefined,
  );
  yield {
    type: "tool_end",
    call,
    result: {
      content,
      isError: r?.status !== "completed",
      meta: { usage, subagents: r ? runEntries(outcome, 1) : [] },
    },
    durationMs: performance.now() - started,
  };
  yield {
    type: "done",
    status: r?.status ?? "error",
    text: r ? r.text : content,
    turns: r?.turns ?? 0,
    toolCalls: 1,
    usage,
    ...(r?.error ? { error: r.error } : !r ? { error: { code: "refused", message: content } } : {}),
  };
}
