/**
 * `reasonix run "<task>"`: one headless run. The answer streams to stdout, diagnostics to
 * stderr; `--json` prints a single JSON summary at the end instead.
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { AgentEvent, RunStatus, UsageTotals } from "../core/agent/events.ts";
import { cacheHitRatio } from "../core/agent/cost.ts";
import { ReasonixError } from "../errors.ts";
import { EXIT_CANCELLED, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { plainRenderer, syncWriter } from "./render_plain.ts";
import { buildRuntime, type Runtime } from "./runtime.ts";

const RUN_USAGE = `Usage: reasonix run [options] "<task>"

Runs one task without a prompt and exits. Reads the task from stdin when none is given.

Options:
  -m, --model <name>        provider, model, or provider/model (default: default_model)
      --max-turns <n>       stop after n model requests (default: [agent].max_turns)
      --json                print one JSON object with the result and usage at the end
  -h, --help                show this help

Exit codes: 0 done, 1 failed or stopped at a limit, 2 bad usage or configuration, 130 cancelled.
`;

/** The JSON summary printed by `--json`. */
export interface RunSummary {
  status: RunStatus;
  result: string;
  model: string;
  session_id: string;
  turns: number;
  tool_calls: number;
  tokens: { prompt: number; completion: number; cache_hit: number; cache_miss: number };
  cache_hit_ratio: number;
  cost: number | null;
  currency: string | null;
  duration_ms: number;
  error?: { code: string; message: string };
}

function summarize(
  done: Extract<AgentEvent, { type: "done" }>,
  runtime: Runtime,
  durationMs: number,
): RunSummary {
  const u: UsageTotals = done.usage;
  return {
    status: done.status,
    result: done.text,
    model: `${runtime.resolved.provider.name}/${runtime.resolved.model}`,
    session_id: runtime.session.id,
    turns: done.turns,
    tool_calls: done.toolCalls,
    tokens: {
      prompt: u.promptTokens,
      completion: u.completionTokens,
      cache_hit: u.cacheHitTokens,
      cache_miss: u.cacheMissTokens,
    },
    cache_hit_ratio: Number(cacheHitRatio(u).toFixed(4)),
    cost: u.cost === undefined ? null : Number(u.cost.toFixed(6)),
    currency: u.currency ?? null,
    duration_ms: Math.round(durationMs),
    ...(done.error ? { error: done.error } : {}),
  };
}

function exitCodeFor(status: RunStatus): number {
  if (status === "completed") return EXIT_OK;
  if (status === "cancelled") return EXIT_CANCELLED;
  return EXIT_FAILURE;
}

async function readStdin(): Promise<string> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of Deno.stdin.readable) {
    chunks.push(decoder.decode(chunk, { stream: true }));
  }
  return chunks.join("").trim();
}

/** Runs `reasonix run` with its arguments and returns the exit code. */
export async function runCommand(argv: string[]): Promise<number> {
  const err = syncWriter(Deno.stderr);
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        model: { type: "string", short: "m" },
        "max-turns": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    err(`reasonix run: ${(error as Error).message}\n\n${RUN_USAGE}`);
    return EXIT_USAGE;
  }
  if (values.help) {
    console.log(RUN_USAGE);
    return EXIT_OK;
  }
  let maxTurns: number | undefined;
  if (values["max-turns"] !== undefined) {
    maxTurns = Number(values["max-turns"]);
    if (!Number.isInteger(maxTurns) || maxTurns < 1) {
      err(`reasonix run: --max-turns must be a positive integer, got "${values["max-turns"]}"\n`);
      return EXIT_USAGE;
    }
  }
  let task = positionals.join(" ").trim();
  if (!task && !Deno.stdin.isTerminal()) task = await readStdin();
  if (!task) {
    err(`reasonix run: no task given.\n\n${RUN_USAGE}`);
    return EXIT_USAGE;
  }

  let runtime: Runtime;
  try {
    runtime = await buildRuntime({
      cwd: Deno.cwd(),
      env: Deno.env.toObject(),
      flags: { model: values.model as string | undefined, maxTurns },
    });
  } catch (error) {
    if (error instanceof ReasonixError) {
      err(`reasonix: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  for (const warning of runtime.warnings) err(`warning: ${warning}\n`);

  const json = values.json === true;
  const render = plainRenderer({
    out: json ? undefined : syncWriter(Deno.stdout),
    err,
    color: Deno.stderr.isTerminal() && !Deno.env.get("NO_COLOR"),
  });
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) Deno.exit(EXIT_CANCELLED);
    controller.abort(new DOMException("Cancelled by the user", "AbortError"));
  };
  Deno.addSignalListener("SIGINT", onSigint);
  const started = performance.now();
  let done: Extract<AgentEvent, { type: "done" }> | undefined;
  try {
    for await (const event of runtime.agent.run({ text: task }, { signal: controller.signal })) {
      render(event);
      if (event.type === "done") done = event;
    }
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
    await runtime.dispose();
  }
  if (!done) throw new Error("agent ended without a done event");
  if (json) console.log(JSON.stringify(summarize(done, runtime, performance.now() - started)));
  return exitCodeFor(done.status);
}
