/**
 * `reasonix run` as data: its options ({@link RUN_OPTIONS}), and the checks that turn what was
 * parsed into {@link RunOptions}. Free of commander, so the fast path (`fast_run.ts`) and the
 * command tree (`run.ts`) share one definition.
 *
 * @module
 */
import { INPUT_FORMATS, OUTPUT_FORMATS, resolveFormats } from "../output/format.ts";
import { permissionFlags } from "../permission_flags.ts";
import type { OptionSpec } from "./option_spec.ts";
import type { ForwardSpec, RunOptions } from "./types.ts";

/** `--plan` values. */
export const PLAN_ROUTES: readonly ("first" | "approve" | "only")[] = ["first", "approve", "only"];

/** `--remote` and `--accept-new-host-key`, for `run` and the interactive session. */
export const REMOTE_OPTIONS: readonly OptionSpec[] = [
  {
    flags: "--remote <target>",
    description: "work on another machine over SSH: user@host[:port]:/path or a [remote] " +
      "target name (docs/REMOTE.md)",
  },
  {
    flags: "--accept-new-host-key",
    description: "with --remote, trust a host key known_hosts does not list yet (added to it)",
  },
  {
    flags: "--forward <port>",
    description: "with --remote, forward <remote-port>[:<local-port>] of the remote host's " +
      "127.0.0.1 to this machine for the session (prints the local URL); repeatable",
    repeatable: true,
  },
];

/** Reads a `--forward` value, or a usage message. */
export function parseForward(text: string): ForwardSpec | string {
  const m = /^(\d{1,5})(?::(\d{1,5}))?$/.exec(text);
  const ports = m ? [Number(m[1]), ...(m[2] === undefined ? [] : [Number(m[2])])] : [];
  if (!m || ports.some((p) => p < 1 || p > 65535)) {
    return `--forward ${text}: expected <remote-port>[:<local-port>], ports 1-65535`;
  }
  return { remotePort: ports[0], ...(ports[1] !== undefined ? { localPort: ports[1] } : {}) };
}

/** The `--forward` values, or a usage message; they need `--remote`. */
export function parseForwards(
  raw: { forward?: string[]; remote?: unknown },
): ForwardSpec[] | string {
  const values = raw.forward ?? [];
  if (values.length && raw.remote === undefined) return "--forward needs --remote";
  const out: ForwardSpec[] = [];
  for (const value of values) {
    const spec = parseForward(value);
    if (typeof spec === "string") return spec;
    out.push(spec);
  }
  return out;
}

/** The name of the headless command. */
export const RUN_COMMAND = "run";

/** The program's `--cwd`, the one global option allowed before a subcommand. */
export const CWD_OPTION: OptionSpec = {
  flags: "--cwd <dir>",
  description: "work in <dir> instead of the current directory",
};

/** The options of `reasonix run` in the order `--help` lists them, before the permission ones. */
export const RUN_OPTIONS: readonly OptionSpec[] = [
  {
    flags: "-m, --model <name>",
    description: "provider, model, or provider/model (default: default_model)",
  },
  {
    flags: "--max-turns <n>",
    description: "stop after n model requests (default: [agent].max_turns)",
  },
  {
    flags: "--max-cost <amount>",
    description: "stop once the run has cost this much (in the price's currency)",
  },
  {
    flags: "--max-tokens <n>",
    description: "stop once the run has used this many prompt + completion tokens",
  },
  {
    flags: "--timeout <duration>",
    description: "stop after this long, e.g. 90s, 10m, 1h (plain numbers are seconds)",
  },
  {
    flags: "--output-format <format>",
    description: "text streams the answer (default), json prints one JSON object at the end, " +
      "stream-json one JSON line per event (Claude Code's shapes)",
    choices: OUTPUT_FORMATS,
  },
  { flags: "--json", description: "the same as --output-format json" },
  {
    flags: "--input-format <format>",
    description: "stream-json reads user turns as JSON lines from stdin, each run to completion " +
      "in one session (needs --output-format stream-json); default text",
    choices: INPUT_FORMATS,
  },
  {
    flags: "--record <file>",
    description: "write the exact provider traffic to <file> (JSONL, keys redacted)",
  },
  {
    flags: "--image <file-or-url>",
    description: "attach an image (PNG, JPEG, GIF, WebP up to 10 MiB); repeatable",
    repeatable: true,
  },
  {
    flags: "-c, --continue",
    description: "continue the most recent session of this workspace",
    conflicts: "resume",
  },
  {
    flags: "-r, --resume <id>",
    description: "continue the session with this id (or unique id prefix)",
  },
  {
    flags: "--plan <route>",
    description: "run the planner ([agent] planner_model) first: first hands the plan to the " +
      "executor, approve saves it for --approve-plan, only saves it and stops (docs/PLANNING.md)",
    choices: PLAN_ROUTES,
  },
  {
    flags: "--approve-plan",
    description: "carry out the plan the session given by -c or -r saved or left waiting",
    conflicts: "plan",
  },
  {
    flags: "--goal <objective>",
    description: "work toward <objective> in rounds until it is complete, blocked or paused by " +
      "[agent] max_goal_rounds / goal_token_budget (docs/GOAL.md)",
    conflicts: "goalResume",
  },
  {
    flags: "--goal-resume",
    description: "resume the paused goal of the session given by -c or -r and run its rounds",
  },
  {
    flags: "--ablate <parts>",
    description: "comma list of parts to take away for an experiment arm: subagent (the task " +
      "tool and its fleet and parallel modes), none (docs/SUBAGENTS.md)",
  },
  ...REMOTE_OPTIONS,
];

/** `--ablate` values. */
export const ABLATIONS: readonly ("subagent" | "none")[] = ["subagent", "none"];

/** `--ablate`'s comma list, checked; a usage error message for an unknown part. */
export function parseAblate(text: string | undefined): ("subagent")[] | string {
  if (text === undefined) return [];
  const parts = text.split(",").map((p) => p.trim()).filter((p) => p.length > 0);
  const unknown = parts.filter((p) => !(ABLATIONS as readonly string[]).includes(p));
  if (unknown.length) {
    return `--ablate takes a comma list of ${ABLATIONS.join(", ")}; got "${unknown.join(", ")}"`;
  }
  return [...new Set(parts.filter((p): p is "subagent" => p !== "none"))];
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

/** What was parsed for `run`, by option key. */
export interface RawRunOptions {
  model?: string;
  maxTurns?: string;
  maxCost?: string;
  maxTokens?: string;
  timeout?: string;
  json?: boolean;
  outputFormat?: string;
  inputFormat?: string;
  record?: string;
  image?: string[];
  continue?: boolean;
  resume?: string;
  goal?: string;
  goalResume?: boolean;
  plan?: string;
  approvePlan?: boolean;
  ablate?: string;
  remote?: string;
  acceptNewHostKey?: boolean;
  forward?: string[];
  [permission: string]: unknown;
}

/** The run's numeric limits, or a usage error message. */
function parseLimits(
  raw: RawRunOptions,
): Pick<RunOptions, "maxTurns" | "maxCost" | "maxTokens" | "timeoutMs"> | string {
  const out: Pick<RunOptions, "maxTurns" | "maxCost" | "maxTokens" | "timeoutMs"> = {};
  if (raw.maxTurns !== undefined) {
    out.maxTurns = Number(raw.maxTurns);
    if (!Number.isInteger(out.maxTurns) || out.maxTurns < 1) {
      return `--max-turns must be a positive integer, got "${raw.maxTurns}"`;
    }
  }
  if (raw.maxCost !== undefined) {
    out.maxCost = Number(raw.maxCost);
    if (!Number.isFinite(out.maxCost) || out.maxCost <= 0) {
      return `--max-cost must be a positive number, got "${raw.maxCost}"`;
    }
  }
  if (raw.maxTokens !== undefined) {
    out.maxTokens = Number(raw.maxTokens);
    if (!Number.isInteger(out.maxTokens) || out.maxTokens < 1) {
      return `--max-tokens must be a positive integer, got "${raw.maxTokens}"`;
    }
  }
  if (raw.timeout !== undefined) {
    out.timeoutMs = parseDuration(raw.timeout);
    if (out.timeoutMs === undefined) {
      return `--timeout must be a duration such as 90s, 10m or 1h, got "${raw.timeout}"`;
    }
    // Timers hold a signed 32-bit count of milliseconds; a longer one would fire at once.
    if (out.timeoutMs > MAX_TIMEOUT_MS) {
      return `--timeout must be at most ${
        Math.floor(MAX_TIMEOUT_MS / 3_600_000)
      }h, got "${raw.timeout}"`;
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

/** A usage error found while checking `run`'s options: the message for the user. */
export interface RunUsage {
  usage: string;
}

/**
 * Checks what was parsed for `run` and gathers it into {@link RunOptions}; reads the task from
 * stdin when none was given. A bad combination comes back as {@link RunUsage}.
 */
export async function checkRunOptions(
  words: string[],
  raw: RawRunOptions,
): Promise<RunOptions | RunUsage> {
  const limits = parseLimits(raw);
  if (typeof limits === "string") return { usage: limits };
  const ablate = parseAblate(raw.ablate);
  if (typeof ablate === "string") return { usage: ablate };
  if (raw.acceptNewHostKey && raw.remote === undefined) {
    return { usage: "--accept-new-host-key needs --remote" };
  }
  const forwards = parseForwards(raw);
  if (typeof forwards === "string") return { usage: forwards };
  const formats = resolveFormats({
    outputFormat: raw.outputFormat,
    inputFormat: raw.inputFormat,
    json: raw.json === true,
    task: words.length > 0,
    images: raw.image !== undefined,
  });
  if (typeof formats === "string") return { usage: formats };
  let task = words.join(" ").trim();
  const goal = goalOptions(raw, task, formats.inputFormat);
  if (typeof goal === "string") return { usage: goal };
  if (goal?.start !== undefined && !task) task = goal.start;
  if (goal?.resume && !task) task = CONTINUE_GOAL_TEXT;
  if (raw.approvePlan && !raw.continue && raw.resume === undefined) {
    return {
      usage: "--approve-plan carries out a session's plan: add --continue or --resume <id>",
    };
  }
  if ((raw.plan !== undefined || raw.approvePlan) && formats.inputFormat !== "text") {
    return { usage: "--plan and --approve-plan take no --input-format stream-json" };
  }
  if (formats.inputFormat === "text" && !raw.approvePlan) {
    if (!task && !Deno.stdin.isTerminal()) task = await readStdin();
    if (!task) return { usage: "no task given." };
  }
  return {
    task,
    model: raw.model,
    ...limits,
    ...formats,
    record: raw.record,
    images: raw.image ?? [],
    resume: raw.continue ? "latest" : raw.resume,
    ...(goal ? { goal } : {}),
    ...(raw.plan !== undefined ? { plan: raw.plan as RunOptions["plan"] } : {}),
    ...(raw.approvePlan ? { approvePlan: true } : {}),
    ...(ablate.length ? { ablate } : {}),
    ...(raw.remote !== undefined
      ? {
        remote: {
          target: raw.remote,
          acceptNewHostKey: raw.acceptNewHostKey === true,
          ...(forwards.length ? { forwards } : {}),
        },
      }
      : {}),
    permissions: permissionFlags(raw),
  };
}

/** The user text of a `--goal-resume` run without a task: the goal driver's fixed text. */
const CONTINUE_GOAL_TEXT = "Continue working toward the goal.";

/** `--goal` / `--goal-resume`, checked, or a usage error message. */
function goalOptions(
  raw: RawRunOptions,
  task: string,
  input: string,
): RunOptions["goal"] | string | undefined {
  if (raw.goal === undefined && !raw.goalResume) return undefined;
  if (input !== "text") return "--goal and --goal-resume take no --input-format stream-json";
  if (raw.goal !== undefined) {
    if (raw.goalResume) return "--goal starts a new goal; --goal-resume continues one: use either";
    if (!raw.goal.trim()) return "--goal needs an objective";
    if (task) return "--goal takes the objective as its value; drop the task argument";
    return { start: raw.goal.trim() };
  }
  if (!raw.continue && raw.resume === undefined) {
    return "--goal-resume continues a session's goal: add --continue or --resume <id>";
  }
  return { resume: true };
}
