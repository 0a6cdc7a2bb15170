/**
 * `reasonix run [options] "<task>"`: the options of a headless run, checked and gathered into
 * {@link RunOptions}. The run itself (`cli/run.ts`) loads only once they are valid.
 *
 * @module
 */
import { type Command, Option } from "commander";
import { INPUT_FORMATS, OUTPUT_FORMATS, resolveFormats } from "../output/format.ts";
import { lazyImport } from "../lazy.ts";
import { addPermissionOptions, permissionFlags } from "../permission_flags.ts";
import { action, type CliContext, usageError } from "./execute.ts";
import type { RunModule, RunOptions } from "./types.ts";

export type { RunOptions } from "./types.ts";

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

/** What commander parsed for `run`. */
interface RawRunOptions {
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

/**
 * Checks what commander parsed for `run` and gathers it into {@link RunOptions}; reads the task
 * from stdin when none was given. Throws a usage error of `command` for a bad combination.
 */
export async function runOptions(
  command: Command,
  words: string[],
  raw: RawRunOptions,
): Promise<RunOptions> {
  const limits = parseLimits(raw);
  if (typeof limits === "string") throw usageError(command, limits);
  const formats = resolveFormats({
    outputFormat: raw.outputFormat,
    inputFormat: raw.inputFormat,
    json: raw.json === true,
    task: words.length > 0,
    images: raw.image !== undefined,
  });
  if (typeof formats === "string") throw usageError(command, formats);
  let task = words.join(" ").trim();
  if (formats.inputFormat === "text") {
    if (!task && !Deno.stdin.isTerminal()) task = await readStdin();
    if (!task) throw usageError(command, "no task given.");
  }
  return {
    task,
    model: raw.model,
    ...limits,
    ...formats,
    record: raw.record,
    images: raw.image ?? [],
    resume: raw.continue ? "latest" : raw.resume,
    permissions: permissionFlags(raw),
  };
}

const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

/** Adds `run` to `parent`. */
export function defineRun(parent: Command, _ctx: CliContext): Command {
  const run = parent
    .command("run")
    .summary("run a task headless, streaming the answer to stdout")
    .description(
      "Runs one task without a prompt and exits. Reads the task from stdin when none is given.",
    )
    .argument("[task...]", "the task; several words are joined with spaces")
    .option("-m, --model <name>", "provider, model, or provider/model (default: default_model)")
    .option("--max-turns <n>", "stop after n model requests (default: [agent].max_turns)")
    .option("--max-cost <amount>", "stop once the run has cost this much (in the price's currency)")
    .option("--max-tokens <n>", "stop once the run has used this many prompt + completion tokens")
    .option(
      "--timeout <duration>",
      "stop after this long, e.g. 90s, 10m, 1h (plain numbers are seconds)",
    )
    .addOption(
      new Option(
        "--output-format <format>",
        "text streams the answer (default), json prints one JSON object at the end, " +
          "stream-json one JSON line per event (Claude Code's shapes)",
      ).choices(OUTPUT_FORMATS),
    )
    .option("--json", "the same as --output-format json")
    .addOption(
      new Option(
        "--input-format <format>",
        "stream-json reads user turns as JSON lines from stdin, each run to completion in one " +
          "session (needs --output-format stream-json); default text",
      ).choices(INPUT_FORMATS),
    )
    .option("--record <file>", "write the exact provider traffic to <file> (JSONL, keys redacted)")
    .addOption(
      new Option(
        "--image <file-or-url>",
        "attach an image (PNG, JPEG, GIF, WebP up to 10 MiB); repeatable",
      ).argParser(collect),
    )
    .addOption(
      new Option("-c, --continue", "continue the most recent session of this workspace")
        .conflicts("resume"),
    )
    .option("-r, --resume <id>", "continue the session with this id (or unique id prefix)");
  addPermissionOptions(run);
  run.addHelpText(
    "after",
    "\nExit codes: 0 done, 1 failed or stopped at a limit, 2 bad usage or configuration, " +
      "130 cancelled,\n143 stopped by SIGTERM.",
  );
  return action(run, async (words: string[], raw: RawRunOptions) => {
    const options = await runOptions(run, words, raw);
    const { runCommand } = await lazyImport<RunModule>("cli/run.ts");
    return await runCommand(options);
  });
}
