/**
 * `reasonix run "<task>"`: one headless run. The answer streams to stdout, diagnostics to
 * stderr; `--output-format json` (`--json`) prints a single JSON summary at the end instead, and
 * `--output-format stream-json` one JSON line per event (docs/HEADLESS.md). The formats live in
 * `cli/output/`, fed by nothing but the agent's event stream.
 *
 * @module
 */
import type { RunStatus } from "../core/agent/events.ts";
import { ReasonixError } from "../errors.ts";
import {
  EXIT_CANCELLED,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_REFUSED,
  EXIT_TERMINATED,
  EXIT_USAGE,
} from "./exit_codes.ts";
import type { RunOptions } from "./commands/types.ts";
import { syncWriter } from "./render_plain.ts";
import {
  createOutput,
  readTurnLines,
  runTurns,
  type TurnLine,
  type TurnsOutcome,
} from "./output/mod.ts";
import { startupFailure } from "./output/startup_failure.ts";
import { version } from "./version.ts";
import { type CliHost, openHost } from "./host.ts";
import type { HostedAgent } from "../core/host/mod.ts";
import { Coordinator } from "../core/coordinator/mod.ts";
import { profileRun } from "../core/subagent/task_tool.ts";
import { GoalRefusal, GoalRunner } from "../core/goal/mod.ts";
import type { Runner } from "../core/agent/events.ts";
import { loadImages } from "../core/vision/mod.ts";
import { stripControl } from "../plugins/mcp/text.ts";
import type { ImagePart } from "../providers/types.ts";

/** The JSON summary and its permission entries, defined with the format in `cli/output/`. */
export type { PermissionEntry, RunSummary } from "./output/mod.ts";

function exitCodeFor(status: RunStatus): number {
  // A plan waiting for approval is what `--plan approve` asked for.
  if (status === "completed" || status === "awaiting_approval") return EXIT_OK;
  if (status === "cancelled") return EXIT_CANCELLED;
  return EXIT_FAILURE;
}

/**
 * `--goal`: starts the goal and arms it; `--goal-resume`: resumes the continued session's
 * paused goal. Either way the run drives rounds until the goal stops.
 */
function startGoal(
  agent: HostedAgent,
  goal: NonNullable<RunOptions["goal"]>,
  runner: Runner,
): Runner {
  const goals = agent.goals;
  if (!goals) throw new GoalRefusal("this agent keeps no goal");
  if (goal.start !== undefined) goals.start(goal.start);
  else goals.resume();
  // Rounds go through the same entry as the task: the coordinator over the agent.
  return new GoalRunner({ runner, goals });
}

/**
 * Runs `reasonix run` with its checked options (parsed by `cli/commands/run.ts`) and returns
 * the exit code.
 */
export async function runCommand(opts: RunOptions): Promise<number> {
  const err = syncWriter(Deno.stderr);
  const { maxTurns, outputFormat, inputFormat, task } = opts;
  const limits = { maxCost: opts.maxCost, maxTokens: opts.maxTokens, timeoutMs: opts.timeoutMs };

  let images: ImagePart[];
  let host: CliHost | undefined;
  let agent: HostedAgent | undefined;
  let runner: Runner;
  let coordinator: Coordinator | undefined;
  try {
    images = await loadImages(opts.images, { cwd: Deno.cwd() });
    const budget = { maxCost: limits.maxCost, maxTokens: limits.maxTokens };
    host = await openHost({
      cwd: Deno.cwd(),
      env: Deno.env.toObject(),
      flags: {
        model: opts.model,
        maxTurns,
        record: opts.record,
        budget,
        images: images.length > 0,
        ...opts.permissions,
      },
      ...(opts.remote ? { remote: { ...opts.remote, interactive: false } } : {}),
    });
    // Headless: nobody answers approvals, so whatever the preset does not cover fails closed.
    agent = await host.createAgent({
      model: opts.model,
      context: { budget },
      transcript: { resume: opts.resume },
      // `--ablate subagent`: no task-tool delegation (its fleet and parallel modes with it).
      ...(opts.ablate?.includes("subagent") ? { tools: { deny: ["task"] } } : {}),
    });
    coordinator = await Coordinator.create({
      host,
      executor: agent,
      plannerModel: host.config.agent.planner_model,
    });
    runner = coordinator;
    if (opts.goal) runner = startGoal(agent, opts.goal, runner);
    // `/<profile> <task>` runs a subagent profile directly, as the interactive UI does.
    const profiled = inputFormat === "text" && !opts.goal
      ? /^\/([\w.-]+)\s+(\S[\s\S]*)$/.exec(task)
      : null;
    const profile = profiled ? await host.findProfile(profiled[1]) : undefined;
    if (profiled && profile) {
      const h = host, a = agent;
      runner = {
        run: (_input, { signal }) =>
          profileRun({
            runner: { run: (spec, o) => h.runSubagent(spec, o) },
            profile,
            task: profiled[2],
            root: h.workspaceRoot,
            parentSessionId: a.session.id,
            signal,
          }),
      };
    }
  } catch (error) {
    await coordinator?.close();
    await agent?.close();
    await host?.close();
    if (error instanceof ReasonixError) {
      const code = error.code;
      const message = stripControl(error.message);
      err(`reasonix: ${message}\n`);
      // A program reading stdout gets the failure in the format it asked for.
      if (outputFormat !== "text") {
        syncWriter(Deno.stdout)(
          `${JSON.stringify(startupFailure(outputFormat, { code, message }))}\n`,
        );
      }
      return EXIT_USAGE;
    }
    throw error;
  }
  for (const warning of [...host.warnings, ...agent.warnings]) {
    err(`warning: ${stripControl(warning)}\n`);
  }

  const resolved = agent.model.resolved;
  const output = createOutput(outputFormat, {
    out: syncWriter(Deno.stdout),
    err,
    color: Deno.stderr.isTerminal() && !Deno.env.get("NO_COLOR"),
    info: {
      sessionId: agent.session.id,
      model: `${resolved.provider.name}/${resolved.model}`,
      tools: agent.registry.names(),
      cwd: Deno.cwd(),
      permissionMode: host.permissions.preset.name,
      mcpServers: host.mcp?.status().map((s) => ({ name: s.name, status: s.phase })) ?? [],
      version: version(),
    },
    goal: opts.goal ? () => agent.goals?.state : undefined,
  });
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) Deno.exit(EXIT_CANCELLED);
    controller.abort(new DOMException("Cancelled by the user", "AbortError"));
  };
  Deno.addSignalListener("SIGINT", onSigint);
  // `kill`, a CI timeout or a container stop: wind down like Ctrl-C, so running tools are
  // stopped, every call gets a result and the session's temporary folder is removed.
  let terminated = false;
  const onSigterm = () => {
    terminated = true;
    if (controller.signal.aborted) Deno.exit(EXIT_TERMINATED);
    controller.abort(new DOMException("Terminated (SIGTERM)", "AbortError"));
  };
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", onSigterm);
  let outcome: TurnsOutcome;
  try {
    const signal = limits.timeoutMs === undefined
      ? controller.signal
      : AbortSignal.any([controller.signal, AbortSignal.timeout(limits.timeoutMs)]);
    // Trusted routing metadata from flags, never parsed from the task's text.
    const route = opts.plan || opts.approvePlan
      ? { route: { plan: opts.plan, approvePlan: opts.approvePlan } }
      : {};
    const turns: AsyncIterable<TurnLine> | TurnLine[] = inputFormat === "stream-json"
      ? readTurnLines(Deno.stdin.readable)
      : [{
        ok: true,
        line: 0,
        input: { text: task, ...(images.length ? { images } : {}), ...route },
      }];
    outcome = await runTurns({ runner, turns, output, signal });
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
    if (Deno.build.os !== "windows") Deno.removeSignalListener("SIGTERM", onSigterm);
    await coordinator?.close();
    await agent.close();
    await host.close();
  }
  if (terminated && outcome.status === "cancelled") return EXIT_TERMINATED;
  // A stdin line that is not a user turn is bad usage; the turns before it are in the session.
  if (outcome.inputError && outcome.status !== "cancelled") return EXIT_USAGE;
  // A goal run's status is `completed` only when its goal is complete (`GoalRunner`).
  const code = exitCodeFor(outcome.status);
  return code === EXIT_OK && output.refusals.entries.length > 0 ? EXIT_REFUSED : code;
}
