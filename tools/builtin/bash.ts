/**
 * `bash`: runs a shell command in its own process group, so a timeout or cancellation can
 * stop everything it started, with bounded head + tail output capture.
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { resolveToolPath } from "../paths.ts";
import { registerBuiltinTool } from "../registry.ts";
import { findTrustedProgram } from "../shell.ts";
import {
  MAX_RAW_CONTENT_BYTES,
  type ShellLaunch,
  type ShellPrograms,
  type Tool,
  type ToolContext,
  type ToolResult,
} from "../types.ts";
import type { ProcessSignal, WorkspaceProcess } from "../workspace/types.ts";
import { HeadTailBuffer } from "./output_buffer.ts";

/** Bytes of output kept from the start and from the end (together under the 32 KiB bound). */
export const BASH_HEAD_BYTES = 15 * 1024;
/** See {@linkcode BASH_HEAD_BYTES}. */
export const BASH_TAIL_BYTES = 15 * 1024;
/** Time between SIGTERM and SIGKILL for the process group. */
export const KILL_GRACE_MS = 2000;
/** How long output may stay open after the command exits before its holders are stopped. */
const DRAIN_GRACE_MS = 500;
const PROGRESS_INTERVAL_MS = 5000;
/** Raw-content room left for what follows the output (notes, exit code). */
const RAW_TRAILER_BYTES = 4096;

const input = z.object({
  command: z.string().min(1).describe("The command line, run with `bash -c`."),
  timeout_seconds: z.number().positive().optional().describe(
    "Time limit in seconds. Default and maximum: the configured bash timeout.",
  ),
  description: z.string().optional().describe(
    "A few words on what the command does, shown to the user.",
  ),
  additional_write_dirs: z.array(z.string().min(1)).optional().describe(
    "Directories outside the workspace the command must write to; requires justification.",
  ),
  justification: z.string().optional().describe("Why additional_write_dirs are needed."),
}).refine((a) => !a.additional_write_dirs?.length || !!a.justification?.trim(), {
  message: "justification is required when additional_write_dirs is given",
  path: ["justification"],
});

type Args = z.infer<typeof input>;

/** Environment overrides that keep commands non-interactive and their output plain. */
export const BASH_ENV: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  TERM: "dumb",
  NO_COLOR: "1",
};

interface Argv {
  program: string;
  args: string[];
  /** Whether the child leads its own process group (pid = pgid). */
  grouped: boolean;
}

/**
 * Wraps the launcher's argv: `bash -c 'exec "$@" 2>&1'` merges stderr into stdout at the file
 * descriptor, so the two interleave exactly as written; `setsid` makes the command lead a new
 * process group, so the whole group can be signalled. Both run outside any sandbox, so they
 * come from `programs`, resolved once from trusted places.
 */
function wrapArgv(program: string, args: string[], programs: Partial<ShellPrograms>): Argv {
  if (programs.bash) {
    args = ["-c", 'exec "$@" 2>&1', "reasonix-bash", program, ...args];
    program = programs.bash;
  }
  if (programs.setsid) return { program: programs.setsid, args: [program, ...args], grouped: true };
  return { program, args, grouped: false };
}

/**
 * The launcher's programs, or — for a launcher that has none — the same careful lookup: never
 * from a relative `PATH` entry or one inside the workspace or the session directory.
 */
async function programsFor(ctx: ToolContext): Promise<Partial<ShellPrograms>> {
  if (ctx.shell.programs) return ctx.shell.programs;
  const workspace = ctx.workspace;
  const untrusted: string[] = [];
  for (const dir of [ctx.root, ctx.tempDir]) {
    untrusted.push(dir, await workspace.realPath(dir).catch(() => dir));
  }
  return {
    bash: await findTrustedProgram("bash", { untrusted, workspace }),
    setsid: await findTrustedProgram("setsid", { untrusted, workspace }),
  };
}

interface Pump {
  done: Promise<void>;
  cancel(): Promise<void>;
}

function pump(stream: ReadableStream<Uint8Array>, sink: HeadTailBuffer): Pump {
  const reader = stream.getReader();
  const done = (async () => {
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return;
        sink.push(value);
      }
    } catch {
      // Cancelled, or the pipe broke: what was read is kept.
    }
  })();
  return { done, cancel: () => reader.cancel().catch(() => {}) };
}

function delay(ms: number): { promise: Promise<"timeout">; clear(): void } {
  let id: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<"timeout">((resolve) => {
    id = setTimeout(() => resolve("timeout"), ms);
  });
  return { promise, clear: () => clearTimeout(id) };
}

/** Resolves with the first of `promise` or `ms` elapsed; true when `promise` won. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = delay(ms);
  try {
    return await Promise.race([promise.then(() => true), timer.promise.then(() => false)]);
  } finally {
    timer.clear();
  }
}

/** Options of {@linkcode runBash}. */
export interface RunBashOptions {
  /** Time between progress reports. Default 5 s. */
  progressIntervalMs?: number;
  /**
   * Cap on the raw content (the complete output and what follows it). Default
   * `MAX_RAW_CONTENT_BYTES` (4 MiB), the pipeline's cap.
   */
  rawMaxBytes?: number;
}

/** Runs one `bash` call; the registered tool uses the default options. */
export async function runBash(
  args: Args,
  ctx: ToolContext,
  opts: RunBashOptions = {},
): Promise<ToolResult> {
  const maxMs = ctx.settings.bashTimeoutMs;
  const timeoutMs = Math.min(
    args.timeout_seconds === undefined ? maxMs : args.timeout_seconds * 1000,
    maxMs,
  );
  if (ctx.signal.aborted) return { content: "Command cancelled", isError: true, code: "cancelled" };
  const writeDirs = args.additional_write_dirs?.map((d) => resolveToolPath(ctx.root, d));
  let argv: Argv;
  let launched: ShellLaunch;
  try {
    launched = await ctx.shell.launch(args.command, { cwd: ctx.root, writeDirs });
    argv = wrapArgv(launched.program, launched.args, await programsFor(ctx));
  } catch (error) {
    return {
      content: `Cannot run the command: ${error instanceof Error ? error.message : String(error)}`,
      isError: true,
      // The permission layer's launcher refused: no usable sandbox, or an unapproved root.
      code: "unavailable",
    };
  }
  const ws = ctx.workspace;
  let child: WorkspaceProcess;
  try {
    child = await ws.spawn([argv.program, ...argv.args], {
      cwd: ctx.root,
      clearEnv: ctx.settings.childEnv !== undefined,
      env: { ...ctx.settings.childEnv, ...BASH_ENV },
    });
  } catch (error) {
    await launched.settle?.();
    return {
      content: `Cannot start ${argv.program}: ${error instanceof Error ? error.message : error}`,
      isError: true,
      code: "io",
    };
  }
  const sink = new HeadTailBuffer({
    headBytes: BASH_HEAD_BYTES,
    tailBytes: BASH_TAIL_BYTES,
    // Room for the notes and the exit code, so the raw text stays within the pipeline's cap.
    keepBytes: (opts.rawMaxBytes ?? MAX_RAW_CONTENT_BYTES) - RAW_TRAILER_BYTES,
  });
  const pumps = [pump(child.stdout, sink), pump(child.stderr, sink)];
  const drained = Promise.all(pumps.map((p) => p.done));

  const signalGroup = (signal: ProcessSignal): void => child.kill(signal, { group: argv.grouped });
  /** SIGTERM the group, SIGKILL after the grace period, then stop reading. */
  const stopGroup = async (): Promise<void> => {
    signalGroup("SIGTERM");
    await within(Promise.all([child.status, drained]), KILL_GRACE_MS);
    signalGroup("SIGKILL");
    if (!(await within(drained, DRAIN_GRACE_MS))) await Promise.all(pumps.map((p) => p.cancel()));
  };

  const started = Date.now();
  const progress = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    const last = sink.lastLine();
    ctx.progress(last ? `${seconds}s: ${last.slice(0, 100)}` : `${seconds}s elapsed`);
  }, opts.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
  const timer = delay(timeoutMs);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"cancel">((resolve) => {
    onAbort = () => resolve("cancel");
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    // An abort during launch fired before the listener existed.
    if (ctx.signal.aborted) resolve("cancel");
  });

  let ending: "exit" | "timeout" | "cancel";
  let stoppedBackground = false;
  try {
    ending = await Promise.race([child.status.then(() => "exit" as const), timer.promise, aborted]);
    if (ending === "exit") {
      // Background processes may still hold the output open; they would block the result.
      if (!(await within(drained, DRAIN_GRACE_MS))) {
        stoppedBackground = true;
        await stopGroup();
      }
    } else {
      await stopGroup();
    }
  } finally {
    clearInterval(progress);
    timer.clear();
    if (onAbort) ctx.signal.removeEventListener("abort", onAbort);
  }
  const status = await child.status;
  const undone = await launched.settle?.() ?? [];

  const output = sink.total === 0 ? "(no output)" : sink.text().replace(/\n$/, "");
  /** Notes and the ending, after the output in both the content and the raw text. */
  const trailer: string[] = [];
  let kept: string | undefined;
  let note: string | undefined;
  if (sink.omitted > 0) {
    // The middle did not reach the model: the complete output (as far as the cap allows)
    // is the raw content, which the session keeps and `session:tool_result` pages through.
    const keptAll = sink.keptBytes >= sink.total;
    note = keptAll
      ? `[the full output (${sink.total} bytes) is kept with this result: read it with ` +
        '`use_capability` "session:tool_result" and this call\'s id]'
      : `[the first ${sink.keptBytes} bytes of the output (${sink.total} bytes in all) are ` +
        'kept with this result: read them with `use_capability` "session:tool_result" and ' +
        "this call's id; to see the rest, rerun with the output filtered or redirected to a " +
        "file]";
    kept = sink.keptText().replace(/\n$/, "") +
      (keptAll
        ? ""
        : `\n[output cut here: the remaining ${sink.total - sink.keptBytes} bytes were not kept]`);
  }
  if (stoppedBackground) {
    trailer.push(
      "[background processes that kept the output open were stopped; redirect their output " +
        "(e.g. `cmd > log 2>&1 &`) to keep them running]",
    );
  }
  const meta: Record<string, unknown> = {
    exitCode: status.code,
    outputBytes: sink.total,
    ...(kept !== undefined ? { keptBytes: sink.keptBytes } : {}),
  };
  const texts = (): Pick<ToolResult, "content" | "raw"> => ({
    content: [output, ...(note ? [note] : []), ...trailer].join("\n"),
    ...(kept !== undefined ? { raw: [kept, ...trailer].join("\n") } : {}),
  });
  if (ending === "timeout") {
    trailer.push(`Command timed out after ${timeoutMs / 1000}s`, ...undone);
    return { ...texts(), isError: true, code: "timeout", meta: { ...meta, timedOut: true } };
  }
  if (ending === "cancel") {
    trailer.push("Command cancelled", ...undone);
    return { ...texts(), isError: true, code: "cancelled", meta: { ...meta, cancelled: true } };
  }
  const bySignal = status.signal ? ` (killed by ${status.signal})` : "";
  trailer.push(`Exit code: ${status.code}${bySignal}`, ...undone);
  const failed = status.code !== 0 || undone.length > 0;
  return { ...texts(), isError: failed, ...(failed ? { code: "failed" } : {}), meta };
}

/** The `bash` tool. */
export const bashTool: Tool = defineTool({
  name: "bash",
  description: "Run a shell command with `bash -c` in the workspace root; returns its " +
    "combined stdout and stderr and the exit code. No stdin; pagers and colors are off. " +
    "Output over 30 KiB keeps the start and the end; the full output (up to 4 MiB) is kept " +
    "with the result for `session:tool_result`. On timeout or cancellation every " +
    "process the command started is killed; background processes still holding the output " +
    "when it exits are stopped too (redirect their output to keep them). Prefer read_file, " +
    "edit_file, grep, glob and ls over cat, sed, grep, find and ls.",
  input,
  readOnly: false,
  access: (args) => ({
    rule: "Bash",
    command: args.command,
    ...(args.additional_write_dirs?.length
      ? {
        extraWriteDirs: {
          dirs: args.additional_write_dirs,
          justification: args.justification ?? "",
        },
      }
      : {}),
  }),
  run: (args, ctx) => runBash(args, ctx),
});

registerBuiltinTool(bashTool);
