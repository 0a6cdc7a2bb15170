/**
 * `reasonix run "<task>"`: one headless run. The answer streams to stdout, diagnostics to
 * stderr; `--json` prints a single JSON summary at the end instead.
 *
 * @module
 */
import { parseArgs } from "node:util";
import type {
  AgentEvent,
  PermissionDecision,
  RunStatus,
  UsageTotals,
} from "../core/agent/events.ts";
import { cacheHitRatio } from "../core/agent/cost.ts";
import { ReasonixError } from "../errors.ts";
import {
  EXIT_CANCELLED,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_TERMINATED,
  EXIT_USAGE,
} from "./exit_codes.ts";
import { PERMISSION_OPTIONS, PERMISSION_USAGE, permissionFlags } from "./permission_flags.ts";
import { plainRenderer, syncWriter } from "./render_plain.ts";
import { buildRuntime, type Runtime } from "./runtime.ts";
import { loadImages } from "../core/vision/mod.ts";
import { stripControl } from "../plugins/mcp/text.ts";
import type { ImagePart } from "../providers/types.ts";

const RUN_USAGE = `Usage: reasonix run [options] "<task>"

Runs one task without a prompt and exits. Reads the task from stdin when none is given.

Options:
  -m, --model <name>        provider, model, or provider/model (default: default_model)
      --max-turns <n>       stop after n model requests (default: [agent].max_turns)
      --max-cost <amount>   stop once the run has cost this much (in the price's currency)
      --max-tokens <n>      stop once the run has used this many prompt + completion tokens
      --timeout <duration>  stop after this long, e.g. 90s, 10m, 1h (plain numbers are seconds)
      --json                print one JSON object with the result and usage at the end
      --record <file>       write the exact provider traffic to <file> (JSONL, keys redacted)
      --image <file-or-url> attach an image (PNG, JPEG, GIF, WebP up to 10 MiB); repeatable
  -c, --continue            continue the most recent session of this workspace
  -r, --resume <id>         continue the session with this id (or unique id prefix)
${PERMISSION_USAGE}
  -h, --help                show this help

Exit codes: 0 done, 1 failed or stopped at a limit, 2 bad usage or configuration, 130 cancelled,
143 stopped by SIGTERM.
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
  /** Every permission decision of the run, in order. */
  permissions: PermissionEntry[];
  error?: { code: string; message: string };
  /** Why the run stopped early (`budget_exceeded`, `timeout`). */
  detail?: string;
}

/** One permission decision in the `--json` summary. */
export interface PermissionEntry {
  tool: string;
  /** What the policy said before anyone answered: `allow`, `ask` or `deny`. */
  decision: PermissionDecision;
  /** Whether the call went ahead. */
  allowed: boolean;
  /** The rule that matched, or how the preset decided. */
  rule: string | null;
  preset: string;
  /** Why it was refused, and what would allow it. */
  reason: string | null;
}

function summarize(
  done: Extract<AgentEvent, { type: "done" }>,
  runtime: Runtime,
  durationMs: number,
  permissions: PermissionEntry[],
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
    permissions,
    ...(done.error ? { error: done.error } : {}),
    ...(done.detail ? { detail: done.detail } : {}),
  };
}

function exitCodeFor(status: RunStatus): number {
  if (status === "completed") return EXIT_OK;
  if (status === "cancelled") return EXIT_CANCELLED;
  return EXIT_FAILURE;
}

/** Parses a duration: `90`, `90s`, `10m`, `1h`, `500ms`. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? "s"]!;
  const ms = Number(match[1]) * unit;
  return ms > 0 ? ms : undefined;
}

/** The longest `--timeout`: the largest delay a timer can hold (about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The run's hard limits, or a usage error message. */
function parseLimits(
  values: Record<string, unknown>,
): { maxCost?: number; maxTokens?: number; timeoutMs?: number } | string {
  const out: { maxCost?: number; maxTokens?: number; timeoutMs?: number } = {};
  if (values["max-cost"] !== undefined) {
    out.maxCost = Number(values["max-cost"]);
    if (!Number.isFinite(out.maxCost) || out.maxCost <= 0) {
      return `--max-cost must be a positive number, got "${values["max-cost"]}"`;
    }
  }
  if (values["max-tokens"] !== undefined) {
    out.maxTokens = Number(values["max-tokens"]);
    if (!Number.isInteger(out.maxTokens) || out.maxTokens < 1) {
      return `--max-tokens must be a positive integer, got "${values["max-tokens"]}"`;
    }
  }
  if (values.timeout !== undefined) {
    out.timeoutMs = parseDuration(String(values.timeout));
    if (out.timeoutMs === undefined) {
      return `--timeout must be a duration such as 90s, 10m or 1h, got "${values.timeout}"`;
    }
    // Timers hold a signed 32-bit count of milliseconds; a longer one would fire at once.
    if (out.timeoutMs > MAX_TIMEOUT_MS) {
      return `--timeout must be at most ${
        Math.floor(MAX_TIMEOUT_MS / 3_600_000)
      }h, got "${values.timeout}"`;
    }
  }
  return out;
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
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        model: { type: "string", short: "m" },
        "max-turns": { type: "string" },
        "max-cost": { type: "string" },
        "max-tokens": { type: "string" },
        timeout: { type: "string" },
        json: { type: "boolean" },
        record: { type: "string" },
        image: { type: "string", multiple: true },
        continue: { type: "boolean", short: "c" },
        resume: { type: "string", short: "r" },
        help: { type: "boolean", short: "h" },
        ...PERMISSION_OPTIONS,
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
  if (values.continue && values.resume !== undefined) {
    err("reasonix run: use either --continue or --resume, not both\n");
    return EXIT_USAGE;
  }
  let maxTurns: number | undefined;
  if (values["max-turns"] !== undefined) {
    maxTurns = Number(values["max-turns"]);
    if (!Number.isInteger(maxTurns) || maxTurns < 1) {
      err(`reasonix run: --max-turns must be a positive integer, got "${values["max-turns"]}"\n`);
      return EXIT_USAGE;
    }
  }
  const limits = parseLimits(values);
  if (typeof limits === "string") {
    err(`reasonix run: ${limits}\n`);
    return EXIT_USAGE;
  }
  let task = positionals.join(" ").trim();
  if (!task && !Deno.stdin.isTerminal()) task = await readStdin();
  if (!task) {
    err(`reasonix run: no task given.\n\n${RUN_USAGE}`);
    return EXIT_USAGE;
  }

  let images: ImagePart[];
  let runtime: Runtime;
  try {
    images = await loadImages(values.image as string[] | undefined ?? [], { cwd: Deno.cwd() });
    runtime = await buildRuntime({
      cwd: Deno.cwd(),
      env: Deno.env.toObject(),
      flags: {
        model: values.model as string | undefined,
        maxTurns,
        resume: values.continue ? "latest" : values.resume as string | undefined,
        record: values.record as string | undefined,
        budget: { maxCost: limits.maxCost, maxTokens: limits.maxTokens },
        images: images.length > 0,
        ...permissionFlags(values),
      },
    });
  } catch (error) {
    if (error instanceof ReasonixError) {
      err(`reasonix: ${stripControl(error.message)}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  for (const warning of runtime.warnings) err(`warning: ${stripControl(warning)}\n`);

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
  // `kill`, a CI timeout or a container stop: wind down like Ctrl-C, so running tools are
  // stopped, every call gets a result and the session's temporary folder is removed.
  let terminated = false;
  const onSigterm = () => {
    terminated = true;
    if (controller.signal.aborted) Deno.exit(EXIT_TERMINATED);
    controller.abort(new DOMException("Terminated (SIGTERM)", "AbortError"));
  };
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", onSigterm);
  const started = performance.now();
  let done: Extract<AgentEvent, { type: "done" }> | undefined;
  const decisions: PermissionEntry[] = [];
  const unsubscribe = runtime.permissions.gate.subscribe((event) => {
    if (event.type !== "permission") return;
    decisions.push({
      tool: event.tool,
      decision: event.decision,
      allowed: event.allowed,
      rule: event.rule ?? null,
      preset: event.preset,
      reason: event.reason ?? null,
    });
  });
  const unsubscribeNotices = runtime.onNotice(render);
  try {
    const signal = limits.timeoutMs === undefined
      ? controller.signal
      : AbortSignal.any([controller.signal, AbortSignal.timeout(limits.timeoutMs)]);
    const input = images.length ? { text: task, images } : { text: task };
    for await (const event of runtime.agent.run(input, { signal })) {
      render(event);
      if (event.type === "done") done = event;
    }
  } finally {
    unsubscribe();
    unsubscribeNotices();
    Deno.removeSignalListener("SIGINT", onSigint);
    if (Deno.build.os !== "windows") Deno.removeSignalListener("SIGTERM", onSigterm);
    await runtime.dispose();
  }
  if (!done) throw new Error("agent ended without a done event");
  if (json) {
    console.log(JSON.stringify(summarize(done, runtime, performance.now() - started, decisions)));
  }
  return terminated && done.status === "cancelled" ? EXIT_TERMINATED : exitCodeFor(done.status);
}
