/**
 * What the command tree hands to the modules that do the work, and the shape of those
 * lazily loaded modules. Kept apart so that neither side imports the other.
 *
 * @module
 */
import type { Command } from "commander";
import type { HostWorkspace } from "../../core/host/open.ts";
import type { HttpServerSpec, McpConcurrency, McpTransportKind } from "../../plugins/mcp/types.ts";
import type { InputFormat, OutputFormat } from "../output/format.ts";
import type { PermissionFlags } from "../permission_flags.ts";
import type { CliContext } from "./execute.ts";

/** A headless run as the command line asks for it, checked. */
export interface RunOptions {
  /**
   * The task: the words after the options, or stdin when none were given. Empty only with
   * `inputFormat: "stream-json"`, whose user turns come from stdin.
   */
  task: string;
  /** `-m`: provider, model, or provider/model. */
  model?: string;
  maxTurns?: number;
  maxCost?: number;
  maxTokens?: number;
  timeoutMs?: number;
  /** `--output-format` (`--json` is `"json"`). */
  outputFormat: OutputFormat;
  /** `--input-format`. */
  inputFormat: InputFormat;
  /** `--record <file>`. */
  record?: string;
  /** `--image`, in order; files or URLs. */
  images: string[];
  /** `"latest"` for `--continue`, the id (or prefix) for `--resume`. */
  resume?: string;
  /**
   * Goal mode: `--goal <objective>` starts a goal, `--goal-resume` resumes the continued
   * session's paused goal; the run lasts until it is complete, blocked or paused.
   */
  goal?: { start?: string; resume?: boolean };
  /** `--plan first|approve|only`: route the task through the planner (spec §3.5). */
  plan?: "first" | "approve" | "only";
  /** `--approve-plan`: carry out the continued session's saved or pending plan. */
  approvePlan?: boolean;
  /** `--ablate`: parts of the harness taken away for an experiment arm (docs/SUBAGENTS.md). */
  ablate?: ("subagent")[];
  /** `--remote` (and `--accept-new-host-key`): run the tools on that host over SSH. */
  remote?: { target: string; acceptNewHostKey: boolean; forwards?: ForwardSpec[] };
  permissions: PermissionFlags;
}

/** The interactive session as the top-level options ask for it. */
export interface InteractiveOptions {
  /** `-m`: provider, model, or provider/model. */
  model?: string;
  /** `"latest"` for `-c`, the id (or prefix) for `-r`. */
  resume?: string;
  /** `--remote` (and `--accept-new-host-key`). */
  remote?: { target: string; acceptNewHostKey: boolean; forwards?: ForwardSpec[] };
  permissions: PermissionFlags;
}

/** `reasonix mcp add`, parsed. */
export interface AddArgs {
  scope?: "user" | "project";
  transport?: McpTransportKind;
  env: Record<string, string>;
  headers: Record<string, string>;
  concurrency?: McpConcurrency;
  startupTimeout?: number;
  name: string;
  target: string;
  args: string[];
}

/** One `reasonix mcp` command, parsed. */
export type McpRequest =
  | { command: "add"; add: AddArgs }
  | { command: "remove"; name: string; scope?: "user" | "project" }
  | { command: "list"; json: boolean }
  | { command: "get" | "login" | "logout"; name: string };

/** One `reasonix trust` command, parsed. */
export type TrustRequest =
  | { command: "status" }
  | { command: "list"; json: boolean }
  | { command: "grant"; all: boolean; names: string[] }
  | { command: "revoke"; all: boolean; names: string[]; workspace?: string };

/** A shell `reasonix completions` prints a script for. */
export type Shell = "bash" | "zsh" | "fish";

/** A `--forward` value: `<remote-port>[:<local-port>]`. */
export interface ForwardSpec {
  /** The port on the remote host's 127.0.0.1. */
  remotePort: number;
  /** The port on this machine's 127.0.0.1; absent: a free one. */
  localPort?: number;
}

/** What `--remote` and `--accept-new-host-key` asked for (`cli/remote_cmd.ts`). */
export interface RemoteRequest {
  /** `user@host[:port]:/path` or a `[remote]` target name. */
  target: string;
  /** Trust an unknown host key without asking (headless runs need it for a new host). */
  acceptNewHostKey?: boolean;
  /** A person is at the terminal to answer questions. */
  interactive: boolean;
  /** `--forward`: remote ports to open on this machine for the session. */
  forwards?: readonly ForwardSpec[];
}

/** What `--remote` gives the host (`cli/remote_cmd.ts`). */
export interface RemoteSession {
  /** Connects (once the configuration is loaded) and hands the host its workspace. */
  open(): Promise<HostWorkspace>;
  /**
   * Starts a `remote = true` MCP server's command on the remote host (when it has one), waits
   * for its port, and returns the local end of a forward to its url.
   */
  tunnel(spec: HttpServerSpec): Promise<URL>;
}

/** `cli/remote_cmd.ts`. */
export interface RemoteModule {
  remoteWorkspace(req: RemoteRequest, env: Record<string, string | undefined>): RemoteSession;
}

/** `cli/run.ts`. */
export interface RunModule {
  runCommand(opts: RunOptions): Promise<number>;
}

/** `cli/interactive.ts`. */
export interface InteractiveModule {
  interactive(opts: InteractiveOptions): Promise<number>;
}

/** `cli/sessions_cmd.ts`. */
export interface SessionsModule {
  sessionsList(opts: { json: boolean; limit?: number; offset?: number }): Promise<number>;
}

/** `cli/subagent_cmd.ts`. */
export interface SubagentModule {
  subagentList(opts: { json: boolean }): Promise<number>;
  subagentRun(opts: {
    mode: "try" | "run";
    profile: string;
    task: string;
    json: boolean;
    model?: string;
    permissions: PermissionFlags;
  }): Promise<number>;
  subagentManage(opts: {
    action: "create" | "edit" | "delete";
    name: string;
    global: boolean;
    fields: {
      description?: string;
      model?: string;
      effort?: string;
      readOnly?: boolean;
      allowedTools?: string;
      prompt?: string;
    };
  }): Promise<number>;
}

/** `cli/config_cmd.ts`. */
export interface ConfigModule {
  compactRatioCommand(opts: { value?: string; local: boolean }): Promise<number>;
}

/** `cli/mcp.ts`. */
export interface McpModule {
  runMcp(request: McpRequest, context: CliContext): Promise<number>;
}

/** `cli/trust.ts`. */
export interface TrustModule {
  runTrust(request: TrustRequest, context: CliContext): Promise<number>;
}

/** `reasonix setup`, as the command line asks for it. */
export interface SetupOptions {
  /** `--preset`: an id of `core/config/presets.ts`. */
  preset?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  /** `--api-key-stdin`: read the key from standard input instead of the environment. */
  apiKeyStdin: boolean;
  model?: string;
  /** `--name`: the `[[providers]]` name to write. */
  name?: string;
  contextWindow?: number;
  /** False with `--no-test`: skip the test request. */
  test: boolean;
  /** `--yes`: never ask; every value comes from flags, the preset or the endpoint. */
  yes: boolean;
}

/** `cli/setup/command.ts`. */
export interface SetupModule {
  setupCommand(opts: SetupOptions, context: CliContext): Promise<number>;
  /**
   * Before the first interactive session: when the model it would use has no key, offers to
   * run the setup. Returns an exit code to stop with, or `undefined` to start the session.
   */
  offerSetup(opts: { model?: string }, context: CliContext): Promise<number | undefined>;
}

/** `cli/completions.ts`. */
export interface CompletionsModule {
  completionScript(root: Command, shell: Shell): string;
}
