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
import type { UsageTotals } from "../agent/events.ts";
import { addUsage, emptyTotals } from "../agent/cost.ts";
import type { Profile, ProfileExecSpec, SubagentResult, SubagentRunner } from "./runner.ts";
import { SubagentRefusal } from "./runner.ts";

const one = z.object({
  prompt: z.string().min(1),
  read_only: z.boolean().optional(),
  write_paths: z.array(z.string()).optional(),
  profile: z.string().optional(),
  model: z.string().optional(),
  effort: z.string().optional(),
});

const input = z.object({ tasks: z.array(one).min(1).max(8) });

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
}

const TASK_DESCRIPTION =
  "Run subagents, each with fresh context, and get their reports. Worth it for broad searches or reviews " +
  "(read_only) and independent changes in parallel (disjoint write_paths); not for one read or small edit. " +
  "A child sees only its prompt: give paths and what done means.";

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
      const outcomes = await Promise.all(
        all.map((task, i) => runOne(task, i, all.length, opts, ctx)),
      );
      const usage = outcomes.reduce(
        (sum, o) => addInto(sum, o.result?.usage),
        emptyTotals(),
      );
      const text = outcomes.map((o, i) => render(o, all.length > 1 ? i + 1 : undefined)).join(
        "\n\n",
      );
      const results = outcomes.flatMap((o) => o.result ? [o.result] : []);
      return {
        content: text,
        isError: outcomes.every((o) => o.result?.status !== "completed"),
        meta: {
          usage,
          subagents: results.map((r) => ({
            sessionId: r.sessionId,
            status: r.status,
            capsuleHash: r.capsuleHash,
            written: r.receipts.written,
            refused: r.receipts.refused,
            commands: r.receipts.commands,
          })),
        },
      };
    },
  }) as Tool;
}

interface Outcome {
  result?: SubagentResult;
  refusal?: string;
}

async function runOne(
  task: One,
  index: number,
  count: number,
  opts: TaskToolOptions,
  ctx: ToolContext,
): Promise<Outcome> {
  let profile: Profile | undefined;
  if (task.profile) {
    profile = await opts.profile?.(task.profile);
    if (!profile) return { refusal: `no subagent profile is named "${task.profile}"` };
  }
  const spec: ProfileExecSpec = {
    task: task.prompt,
    readOnly: task.read_only,
    writePaths: task.write_paths,
    profile,
    model: task.model,
    effort: task.effort,
    ephemeral: opts.ephemeral,
    parent: { sessionId: opts.parent.sessionId(), depth: opts.parent.depth },
  };
  const label = count > 1 ? `child ${index + 1}` : "child";
  try {
    const it = opts.runner.run(spec, { signal: ctx.signal });
    while (true) {
      const step = await it.next();
      if (step.done) return { result: step.value };
      const event = step.value;
      // Each child's own activity, tagged with its session, for front ends that show it.
      if (event.type === "tool_start") {
        ctx.progress(`${label}: ${event.call.name}`, { child: event.agentId, event });
      } else if (event.type === "tool_end") {
        const mark = event.result.isError ? "✗" : "✓";
        ctx.progress(`${label}: ${event.call.name} ${mark}`, { child: event.agentId, event });
      } else if (event.type === "usage") {
        ctx.progress(`${label}: thinking`, { child: event.agentId, event });
      }
    }
  } catch (error) {
    if (error instanceof SubagentRefusal) return { refusal: error.message };
    throw error;
  }
}

function addInto(sum: UsageTotals, u: UsageTotals | undefined): UsageTotals {
  if (!u) return sum;
  addUsage(sum, u, u.cost);
  if (u.currency && !sum.currency) sum.currency = u.currency;
  return sum;
}

function render(o: Outcome, n: number | undefined): string {
  const head = n === undefined ? "" : `[task ${n}] `;
  if (o.refusal) return `${head}Not started: ${o.refusal}.`;
  const r = o.result!;
  const lines = [`${head}<subagent status="${r.status}" turns="${r.turns}">`, r.text.trim()];
  if (r.error) lines.push(`error: ${r.error.message}`);
  lines.push("</subagent>");
  const receipts: string[] = [];
  if (r.receipts.written.length) receipts.push(`wrote: ${r.receipts.written.join(", ")}`);
  if (r.receipts.commands.length) {
    receipts.push(
      `ran: ${
        r.receipts.commands.map((c) => `\`${c.command}\` (${c.ok ? "ok" : "failed"})`).join(", ")
      }`,
    );
  }
  if (r.receipts.refused.length) {
    receipts.push(`refused outside write_paths: ${r.receipts.refused.join(", ")}`);
  }
  if (receipts.length) lines.push(`Host receipts: ${receipts.join("; ")}`);
  return lines.join("\n");
}
