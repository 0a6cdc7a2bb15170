/**
 * The `Tool` interface and the context every call runs in (spec §3.2).
 *
 * @module
 */
import type { JsonSchema } from "../providers/types.ts";
import type { Workspace } from "./workspace/types.ts";

export type { JsonSchema };

/**
 * Why a tool call failed, for front ends and programs; the model reads `content` instead.
 * One closed list, so a caller's `switch` is checked by the compiler.
 */
export type ToolErrorCode =
  /** The model named a tool that is not registered. */
  | "unknown_tool"
  /** The arguments did not decode or validate, or ask for something meaningless. */
  | "invalid_arguments"
  /** The permission layer, a read rule or the file system refused. */
  | "permission_denied"
  /** A named file, directory or record does not exist. */
  | "not_found"
  /** The path exists but is the wrong kind: a directory, a binary or special file. */
  | "wrong_type"
  /** The input is larger than the tool handles. */
  | "too_large"
  /** The change does not apply: the text is not there, the target exists, nothing would change. */
  | "conflict"
  /** The call ran out of time. */
  | "timeout"
  /** The user or the turn cancelled the call. */
  | "cancelled"
  /** Something the call needs (an MCP server, the OS sandbox) is not available. */
  | "unavailable"
  /** Reading, writing or starting a process failed. */
  | "io"
  /** The tool ran and reported failure, e.g. a non-zero exit status or an MCP error result. */
  | "failed"
  /** The same call failed the same way too often and was not run again. */
  | "repeated_failure"
  /** The tool threw where it should have returned a result. */
  | "internal";

/**
 * Cap on a tool result's raw content (`ToolResult.raw`, `Message.rawContent`), in UTF-8
 * bytes: the full local text kept for `session:tool_result`. Output beyond it is not kept,
 * and the result says how much was.
 */
export const MAX_RAW_CONTENT_BYTES = 4 * 1024 * 1024;

/** What a tool call returns. Failures are results written for the model, never exceptions. */
export interface ToolResult {
  /** Provider-visible text. The central pipeline bounds it to 32 KB. */
  content: string;
  /** Whether the call failed. */
  isError?: boolean;
  /**
   * Why the call failed, when `isError`. Never sent to the model. The central pipeline sets
   * `failed` on an error result a tool returned without one, so every failure carries a code.
   */
  code?: ToolErrorCode;
  /**
   * Local full text when `content` had to be shortened, at most
   * {@linkcode MAX_RAW_CONTENT_BYTES}; kept with the session for `session:tool_result`, never
   * sent to the model unasked (not in sampling, retries, summaries or replay).
   */
  raw?: string;
  /** Structured extras for front ends (e.g. a diff of an edit). Never sent to the model. */
  meta?: Record<string, unknown>;
}

/** Sandbox boundary a shell command must run inside. */
export interface ShellSpawnOptions {
  /** Directory the command starts in, absolute. */
  cwd: string;
  /** Extra directories this call may write to, already approved. */
  writeDirs?: readonly string[];
  /**
   * Narrows the sandbox's writable roots to these canonical paths inside the write scope (a
   * subagent's write claim). Only a launcher with `rebindsWriteRoots` honours it.
   */
  writeRoots?: readonly string[];
}

/** Absolute paths of the programs that start shell commands, resolved once from trusted places. */
export interface ShellPrograms {
  /** Absolute path of `bash`. */
  bash: string;
  /** Absent where `setsid` is not installed: commands then do not lead a process group. */
  setsid?: string;
}

/** What a {@linkcode ShellLauncher} returns for one command. */
export interface ShellLaunch {
  /** Program to spawn, absolute. */
  program: string;
  /** Its arguments. */
  args: string[];
  /**
   * Called once the command and everything it started have ended; undoes what the command
   * may not keep and returns one note per undone change, for the result.
   */
  settle?(): Promise<string[]>;
}

/** Turns a shell command into the argv to spawn; the permission layer may add an OS sandbox. */
export interface ShellLauncher {
  /**
   * Returns the program and arguments that run `command` with `bash -c` semantics, or throws
   * a `ReasonixError` when the command may not run (e.g. a required sandbox is missing).
   */
  launch(command: string, opts: ShellSpawnOptions): Promise<ShellLaunch>;
  /** The programs that wrap the launch; absent: the caller resolves them the same careful way. */
  readonly programs?: ShellPrograms;
  /**
   * Whether an OS sandbox confines what commands write, so `writeRoots` can narrow it. False or
   * absent: commands could write anywhere the process can, and a claimed writer loses `bash`.
   */
  readonly rebindsWriteRoots?: boolean;
  /**
   * Checks, before any work starts, that commands can run the way the launcher requires (the
   * OS sandbox is installed and works here); throws the error a launch would throw.
   */
  preflight?(opts: { signal?: AbortSignal }): Promise<void>;
}

/** Tool settings from the `[tools]` config table. */
export interface ToolSettings {
  /** Default and maximum time for one `bash` call. */
  bashTimeoutMs: number;
  /**
   * The whole environment of the programs tools start (provider keys and other secrets
   * removed). Absent: they inherit the process environment.
   */
  childEnv?: Readonly<Record<string, string>>;
}

/**
 * What readers may open or list: the read-deny path rules and `forbid_read`, per file. The
 * permission gate checks the path a call names; searches and listings ask this for every
 * entry they would open or show, so a search of a parent cannot reach a denied file.
 */
export interface ReadGuard {
  /** `path` (absolute) resolved the way the guard compares paths: every symlink followed. */
  canonical(path: string): Promise<string>;
  /**
   * What keeps a reader of rule family `family` (`Read`, `Grep`, `Glob`, `LS`) from the
   * canonical path `path` — a rule or a `forbid_read` entry, as text — or undefined.
   */
  blocked(path: string, family: string): string | undefined;
}

/** Everything a tool call may use. */
export interface ToolContext {
  /** Absolute, canonical workspace root. Relative paths resolve against it. */
  root: string;
  /** Aborted on Ctrl-C or timeout; pass it to every subprocess and fetch. */
  signal: AbortSignal;
  /** Session-private temporary directory. */
  tempDir: string;
  /** Starts shell commands. */
  shell: ShellLauncher;
  /** Limits and environment from the `[tools]` table. */
  settings: ToolSettings;
  /**
   * Reports progress of a long call to the front end. `detail` carries structured extras for
   * front ends (a subagent's own event); it never reaches the model.
   */
  progress(message: string, detail?: Readonly<Record<string, unknown>>): void;
  /** Read rules per file; absent where no permission layer runs (tests, library use). */
  readGuard?: ReadGuard;
  /**
   * Where the call's files and processes are: every file operation and every program a tool
   * starts goes through it (the local machine, or a remote one).
   */
  workspace: Workspace;
}

/**
 * What the calls of a turn share: a {@linkcode ToolContext} without the per-call `signal` and
 * `progress`. Without `workspace` the pipeline uses the local one.
 */
export type SharedToolContext = Omit<ToolContext, "signal" | "progress" | "workspace"> & {
  workspace?: Workspace;
};

/** Paths and commands a call touches, for the central permission and confinement layer. */
export interface ToolAccess {
  /** Permission-rule family, e.g. `Bash`, `Edit`, `Write`, `Read`. Defaults to the tool name. */
  rule?: string;
  /** The shell command, for `Bash(...)` rules. */
  command?: string;
  /** Paths read, as given (relative to the workspace root or absolute). */
  reads?: string[];
  /** Paths written, as given. */
  writes?: string[];
  /**
   * Renames the call makes (`from` and `to` as given): the permission layer refuses one that
   * would carry a path the read rules protect to a name they do not cover.
   */
  moves?: { from: string; to: string }[];
  /** Extra write roots requested by the call, with the model's justification. */
  extraWriteDirs?: { dirs: string[]; justification: string };
  /** Overrides the tool's static `readOnly` for this call (proxies such as `use_capability`). */
  readOnly?: boolean;
}

/** Outcome of argument validation. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * A tool the model can call.
 *
 * @example A tool written by hand (see `defineTool` for the zod way)
 * ```ts
 * import type { Tool } from "@reasonix/reasonix";
 *
 * const wordCount: Tool<{ text: string }> = {
 *   name: "word_count",
 *   description: "Counts the words of a text.",
 *   schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   readOnly: true,
 *   parse: (args) =>
 *     typeof (args as { text?: unknown }).text === "string"
 *       ? { ok: true, value: args as { text: string } }
 *       : { ok: false, error: "text: expected a string" },
 *   execute: (args) => Promise.resolve({ content: String(args.text.split(/\s+/).filter(Boolean).length) }),
 * };
 * ```
 */
export interface Tool<Args = unknown> {
  /** Unique name the model calls the tool by. */
  readonly name: string;
  /** What the tool does and when to use it, for the model. */
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly schema: JsonSchema;
  /** Read-only tools may run in parallel and fall back to `allow` in the permission policy. */
  readonly readOnly: boolean;
  /** Validates decoded JSON arguments; absent means the tool accepts any object. */
  parse?(args: unknown): ParseResult<Args>;
  /** What the call will touch; consulted before `execute`. */
  access?(args: Args): ToolAccess;
  /**
   * The bound on this call when the tool has its own (an MCP tool: its server's start-up wait
   * plus `mcp_call_timeout_seconds`); absent or undefined means the agent's tool timeout.
   */
  timeoutMs?(args: Args): number | undefined;
  /** Runs the call. Must not throw for expected failures: return `{ isError: true }`. */
  execute(args: Args, ctx: ToolContext): Promise<ToolResult>;
}
