/**
 * The host and the one way to build an agent (spec §3.15). A {@linkcode Host} holds what
 * lives as long as the process: configuration, the model bindings (providers with their
 * learned output limits), MCP connections, the permission policy and its session grants, the
 * tool catalogue, the workspace and the session store. {@linkcode Host.createAgent} builds
 * what lives per agent from a plain-data {@linkcode AgentSpec}: session, context manager,
 * tool registry, gate view and turn builder. Every agent of the process, the interactive one,
 * `reasonix run`'s, a planner, an executor or a subagent, is made here; this is the only
 * module that constructs an `Agent` (a boundary test keeps it so).
 *
 * @module
 */
import { join } from "node:path";
import { Agent } from "../agent/agent.ts";
import { type ApprovalChoice, StreamApprovals } from "../agent/approval.ts";
import type { AgentEvent, Runner, UserInput } from "../agent/events.ts";
import { Session } from "../agent/session.ts";
import { SYSTEM_PROMPT } from "../agent/system_prompt.ts";
import type { Config, ResolvedModel } from "../config/types.ts";
import { TokenEstimator } from "../context/estimator.ts";
import { type CompactionReport, ContextManager } from "../context/manager.ts";
import { toolResultCapability } from "../context/tool_results.ts";
import { Goals } from "../goal/goals.ts";
import type { FactStore } from "../memory/facts.ts";
import { HistoryIndex, historyTool } from "../memory/history.ts";
import { memoryTools } from "../memory/tools.ts";
import type { Permissions } from "../permission/mod.ts";
import { exitPlanModeCapability, type PlanMode } from "../plan/mod.ts";
import type { McpResourceReader } from "../references/mod.ts";
import { openSession } from "../store/session_store.ts";
import { reserveIndexWrites } from "../store/session_index.ts";
import type { OfferedTool } from "../store/transcript.ts";
import type { TranscriptRecord } from "../store/records.ts";
import type { ImageTurns } from "../vision/mod.ts";
import type { Provider } from "../../providers/types.ts";
import { CapabilityHub, type CapabilitySource, useCapabilityTool } from "../../tools/capability.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import type { Tool, ToolContext } from "../../tools/types.ts";
import type { Workspace } from "../../tools/workspace/mod.ts";
import { type HostMcpTools, planTools, sameOffered, ToolNotices } from "./offered_tools.ts";
import { TurnBuilder } from "./turn_builder.ts";
import { SUBMIT_PLAN, submitPlanTool } from "../coordinator/plan.ts";
import {
  type ChildGrant,
  type ChildMaker,
  childTools,
  findProfile,
  listProfiles,
  needsReadOnlyCapabilities,
  onlyReadOnly,
  type Profile,
  type ProfileDirs,
  type ProfileExecSpec,
  type SubagentResult,
  SubagentRunner,
  taskTool,
  writeCapsule,
  type WriteClaim,
} from "../subagent/mod.ts";
import { CacheMeter } from "../context/cache_meter.ts";

/**
 * What one agent is, as plain data. Every field defaults from the configuration, so `{}` is
 * the configured default agent.
 */
export interface AgentSpec {
  /** `provider`, `model` or `provider/model`; default `default_model`. */
  model?: string;
  /** The system prompt text; default Reasonix's stable prompt. Keep it byte-stable. */
  systemPrompt?: string;
  /** Which tools of the catalogue the agent gets: `allow` names (all when absent) less `deny`. */
  tools?: { allow?: readonly string[]; deny?: readonly string[] };
  /**
   * How approvals are answered: `none` (default) fails closed as headless runs do; `stream`
   * yields `approval_request` events carrying `respond`, for any front end to answer.
   */
  approvals?: "none" | "stream";
  /** Loop and context settings; defaults from `[agent]`. */
  context?: {
    maxTurns?: number;
    reasoningEffort?: string;
    temperature?: number;
    compactRatio?: number;
    /** Hard limits for unattended runs. */
    budget?: { maxCost?: number; maxTokens?: number };
  };
  /** Turn building: whether `@` references are resolved (default true). */
  turn?: { references?: boolean };
  /**
   * Where the conversation lives: a new transcript (default), a resumed one (`latest` or an
   * id or unique id prefix), or `ephemeral` (in memory only, nothing written).
   */
  transcript?: { resume?: string } | "ephemeral";
  /** The agent that made this one, for subagents and the coordinator's executor. */
  parent?: { sessionId?: string; agentId?: string };
  /**
   * `planner`: the coordinator's planner (spec §3.5). It gets the read-only research tools and
   * `submit_plan`, whose successful call ends its run; MCP tools only through `use_capability`
   * and never destructive ones; `tools` can narrow this further.
   */
  role?: "planner" | "subagent";
  /**
   * A subagent's capability grant (`role: "subagent"`, set by the subagent runner): read-only,
   * or a writer bound to canonical write roots (absent: the whole workspace), and its depth.
   */
  grant?: ChildGrant;
  /**
   * Whether the agent keeps a goal (Goal mode: `get_goal`, `create_goal`, `update_goal` behind
   * `use_capability`, the goal block on user turns). Default: a top-level agent that is not a
   * planner does; an agent with a `parent` never inherits one.
   */
  goals?: boolean;
}

/** The tools a planner may research with, besides `submit_plan`. */
const PLANNER_TOOLS: readonly string[] = [
  "read_file",
  "ls",
  "glob",
  "grep",
  "history",
  "memory",
  "use_capability",
  SUBMIT_PLAN,
];

/** A capability source without destructive capabilities, checked at every listing and call. */
function withoutDestructive(source: CapabilitySource): CapabilitySource {
  return { list: () => source.list().filter((c) => c.destructive !== true) };
}

/** A model and its provider, shared by every agent of the host that uses it. */
export interface ModelBinding {
  /**
   * The model as configured: provider entry, wire id, context window, price.
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  resolved: ResolvedModel;
  /** The provider that serves it; shared by every agent of the host on this model. */
  provider: Provider;
  /**
   * The context window to plan for: the configured one, or the smaller one the provider stated
   * in an overflow error (remembered across sessions in the Reasonix home).
   */
  contextWindow(): number;
  /** Adopts and remembers a smaller window the provider stated. */
  learnContextWindow(tokens: number): void;
  /** The output cap for a prompt size, using the limits this provider has learned. */
  outputBudget(promptTokens: number): number | undefined | {
    maxOutputTokens?: number;
    compact?: boolean;
  };
  /**
   * Image handling for this model.
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  vision: ImageTurns;
}

/** The MCP side of a host, as the host uses it (the composition supplies the real one). */
export interface HostMcp {
  /** Capabilities reachable through `use_capability`. */
  capabilitySource(): CapabilitySource;
  /** Stops every server; called once when the host closes. */
  close(): Promise<void>;
  /**
   * The server and tool behind a catalogue tool (see `offered_tools.ts`).
   *
   * @ignore
   */
  toolOrigin?: HostMcpTools["toolOrigin"];
  /**
   * Tools with exactly the definitions a resumed session recorded.
   *
   * @ignore
   */
  restoreTools?: HostMcpTools["restoreTools"];
  /**
   * Reports how the live tool lists differ from what a session offers.
   *
   * @ignore
   */
  watchTools?: HostMcpTools["watchTools"];
}

/** What a composition function (`openHost`) assembles a host from. */
export interface HostParts<M extends HostMcp = HostMcp> {
  /**
   * The loaded configuration, flags applied.
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  config: Config;
  /** Warnings to show the user (configuration, trust, MCP). */
  warnings: string[];
  /** The Reasonix home. */
  home: string;
  /** The user's home directory, for `~/.claude/skills` profiles. */
  userHome?: string;
  /** Canonical workspace root. */
  workspaceRoot: string;
  /** Where this workspace's transcripts are. */
  sessionDir: string;
  /** Resolves and binds a model reference (`undefined`: the default model). */
  bindModel(ref: string | undefined): Promise<ModelBinding>;
  /**
   * The policy, write scope, shell and the gate whose session grants every agent shares.
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  permissions: Permissions;
  /** Tools every agent may get: enabled built-ins and MCP direct tools. */
  catalogue: readonly Tool[];
  /** MCP servers of the host, when any were declared. */
  mcp?: M;
  /** MCP resources for `@server:uri` references. */
  resources?: McpResourceReader;
  /**
   * Remembered facts, for recall and the memory tools.
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  facts: FactStore;
  /** The tool context shared by every agent (workspace, shell, settings). */
  toolContext: Omit<ToolContext, "signal" | "progress">;
  /** e.g. `linux x86_64`, for the environment facts. */
  platform: string;
  /** Whether the workspace root is a git repository, for the environment facts. */
  isGitRepo: boolean;
  /** The clock (tests pin it); default the system clock. */
  now?: () => Date;
  /** Releases what the composition opened (recordings, temp directory). */
  close(): Promise<void>;
}

function scoped(tools: readonly Tool[], scope: AgentSpec["tools"]): Tool[] {
  return tools.filter((t) =>
    (scope?.allow === undefined || scope.allow.includes(t.name)) &&
    !scope?.deny?.includes(t.name)
  );
}

/** `events` with the goal's changes (made by its capabilities during the run) after each event. */
async function* withGoalEvents(
  events: AsyncIterable<AgentEvent>,
  goals: Goals,
): AsyncIterable<AgentEvent> {
  yield* goals.drain();
  for await (const event of events) {
    if (event.type === "done") yield* goals.drain();
    yield event;
    if (event.type !== "done") yield* goals.drain();
  }
}

/**
 * One agent of a host: a {@linkcode Runner} with its session.
 *
 * @example Answer approvals from the event stream
 * ```ts
 * import type { Host } from "@reasonix/reasonix";
 *
 * async function runApprovingReads(host: Host, text: string): Promise<void> {
 *   await using agent = await host.createAgent({ approvals: "stream" });
 *   for await (const event of agent.run({ text }, { signal: AbortSignal.timeout(60_000) })) {
 *     if (event.type === "approval_request") {
 *       event.respond?.(event.request.tool === "read_file" ? "once" : "deny");
 *     }
 *   }
 * }
 * ```
 */
export class HostedAgent implements Runner {
  /** The spec it was built from. */
  readonly spec: AgentSpec;
  /** The model it talks to. */
  readonly model: ModelBinding;
  /** The conversation, append-only. */
  readonly session: Session;
  /** The transcript file; undefined for an ephemeral agent. */
  readonly sessionPath: string | undefined;
  /** Whether the session continues an earlier one. */
  readonly resumed: boolean;
  /**
   * Context maintenance of this session (spec §3.6).
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  readonly context: ContextManager;
  /** The tools this agent offers the model, sorted by name. */
  readonly registry: ToolRegistry;
  /** Warnings about the transcript (damaged lines, interrupted calls). */
  readonly warnings: readonly string[];
  /**
   * The session's goal (Goal mode), restored disarmed on resume; undefined for an agent
   * without goals (`spec.goals`).
   */
  readonly goals: Goals | undefined;
  /**
   * A writing subagent's claim and what it recorded.
   *
   * @internal Used by the subagent runner; not a stable part of the library API.
   */
  readonly claim: WriteClaim | undefined;
  readonly #agent: Agent;
  readonly #approvals: StreamApprovals | undefined;
  readonly #close: () => void | Promise<void>;
  readonly #record: (record: TranscriptRecord) => void;
  #closed = false;

  /** @internal Built by {@linkcode Host.createAgent} only. */
  constructor(parts: {
    spec: AgentSpec;
    model: ModelBinding;
    session: Session;
    sessionPath: string | undefined;
    resumed: boolean;
    context: ContextManager;
    registry: ToolRegistry;
    warnings: string[];
    agent: Agent;
    approvals: StreamApprovals | undefined;
    close: () => void | Promise<void>;
    record: (record: TranscriptRecord) => void;
    goals?: Goals;
    claim?: WriteClaim;
  }) {
    this.spec = parts.spec;
    this.model = parts.model;
    this.session = parts.session;
    this.sessionPath = parts.sessionPath;
    this.resumed = parts.resumed;
    this.context = parts.context;
    this.registry = parts.registry;
    this.warnings = parts.warnings;
    this.goals = parts.goals;
    this.claim = parts.claim;
    this.#agent = parts.agent;
    this.#approvals = parts.approvals;
    this.#close = parts.close;
    this.#record = parts.record;
  }

  /**
   * Appends a record that is not a message (a route, a plan) to the transcript; nothing for an
   * ephemeral agent.
   *
   * @internal Used by the coordinator; not a stable part of the library API.
   */
  record(record: TranscriptRecord): void {
    this.#record(record);
  }

  /**
   * Voids the messages from index `to` on in the transcript and closes this agent: an
   * incomplete turn that must not be continued (a planner that did not converge). Open the
   * session again to go on from before that turn.
   *
   * @internal Used by the coordinator; not a stable part of the library API.
   */
  async rollback(to: number): Promise<void> {
    if (to < this.session.messages.length) this.#record({ t: "rollback", to });
    await this.close();
  }

  /** Measures every request of the session against the one before it (cache breaks). */
  get cacheMeter(): CacheMeter {
    return this.#agent.cacheMeter;
  }

  /**
   * Runs one user input; everything a front end shows arrives as these events. `maxTurns`
   * bounds this run's requests below the agent's own limit.
   */
  run(
    input: UserInput,
    opts: { signal: AbortSignal; maxTurns?: number },
  ): AsyncIterable<AgentEvent> {
    const goals = this.goals;
    if (!goals) return this.#agent.run(input, opts);
    return withGoalEvents(this.#agent.run(input, opts), goals);
  }

  /**
   * Answers a pending approval by its request id, for front ends that carry events across a
   * wire (the event's own `respond` does the same). Ignored without `approvals: "stream"`.
   */
  answer(id: string, choice: ApprovalChoice): void {
    this.#approvals?.answer(id, choice);
  }

  /** Changes request settings from the next request on, without a new session. */
  configure(settings: { reasoningEffort?: string | null }): void {
    this.#agent.configure(settings);
  }

  /** The reasoning effort sent with requests, if any. */
  get reasoningEffort(): string | undefined {
    return this.#agent.reasoningEffort;
  }

  /** `/compact [instructions]`: summarizes the conversation now. */
  async compact(opts: { signal: AbortSignal; instructions?: string }): Promise<CompactionReport[]> {
    return (await this.context.compactNow(this.session.messages, opts)).reports;
  }

  /** Closes the transcript (the host stays open). Idempotent. */
  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      return Promise.resolve(this.#close());
    }
    return Promise.resolve();
  }

  /** `await using agent = await host.createAgent(spec)`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * What lives as long as the process; makes agents.
 *
 * @example Ask a host's default agent one question
 * ```ts
 * import type { Host } from "@reasonix/reasonix";
 *
 * async function ask(host: Host, text: string): Promise<string | undefined> {
 *   // Every spec field defaults from the configuration; "ephemeral" writes no transcript.
 *   await using agent = await host.createAgent({ transcript: "ephemeral" });
 *   for await (const event of agent.run({ text }, { signal: AbortSignal.timeout(60_000) })) {
 *     if (event.type === "done") return event.text;
 *   }
 * }
 * ```
 */
export class Host<M extends HostMcp = HostMcp> {
  /**
   * The loaded configuration, flags applied.
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  readonly config: Config;
  /** Warnings to show the user (configuration, trust, MCP). */
  readonly warnings: readonly string[];
  /** The Reasonix home. */
  readonly home: string;
  /** Canonical workspace root. */
  readonly workspaceRoot: string;
  /** Where this workspace's transcripts are. */
  readonly sessionDir: string;
  /**
   * The permission layer; its session grants hold for every agent of the host.
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  readonly permissions: Permissions;
  /** MCP servers of the host, when any were declared. */
  readonly mcp: M | undefined;
  readonly #parts: HostParts<M>;
  readonly #models = new Map<string, Promise<ModelBinding>>();
  #lockedDown = false;
  /** The cache meter of the latest top-level session, kept for a new agent on it (`/model`). */
  #meter: { session: string; meter: CacheMeter } | undefined;
  #closed = false;
  readonly #turnStates = new Set<() => string | undefined>();
  #subagents: SubagentRunner | undefined;
  /** Each session's model and effort as its latest agent runs it: its children's executor. */
  readonly #executors = new Map<string, { model: string; effort?: string }>();

  /** Use a composition function (`openHost`) rather than this constructor. */
  constructor(parts: HostParts<M>) {
    this.#parts = parts;
    this.config = parts.config;
    this.warnings = parts.warnings;
    this.home = parts.home;
    this.workspaceRoot = parts.workspaceRoot;
    this.sessionDir = parts.sessionDir;
    this.permissions = parts.permissions;
    this.mcp = parts.mcp;
    // Plan mode rides the user turn, never the system prompt or the tool list.
    this.addTurnState(() => this.planMode.turnBlock());
  }

  /**
   * Plan mode of every agent of this host (`/plan`, Shift+Tab): `enter()`, `exit()`,
   * `active`. While it is on writers are refused and the agent's plan needs a person's
   * approval (`exit_plan_mode`); it is independent of the permission mode.
   */
  get planMode(): PlanMode {
    return this.permissions.gate.plan;
  }

  /** Where the tools read, write and run (local today; remote workspaces implement it too). */
  get workspace(): Workspace {
    return this.#parts.toolContext.workspace;
  }

  /**
   * Remembered facts of this project and global ones (`/memory` lists and restores them).
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  get facts(): FactStore {
    return this.#parts.facts;
  }

  /** The permission mode every agent of this host is answered by now, e.g. `ask`. */
  get permissionMode(): string {
    return this.permissions.preset.name;
  }

  /**
   * Switches the permission mode from the next tool call on, for every agent of the host
   * (Shift+Tab and `/permissions`). Only between `SESSION_MODES` (ask, accept-edits, auto);
   * otherwise throws `ConfigError` and nothing changes. Session grants stay.
   */
  setPermissionMode(mode: string): string {
    return this.permissions.setMode(mode).name;
  }

  /**
   * Adds volatile state to every user turn of this host's agents from the next turn on (e.g.
   * the collaboration mode or an active goal): `source` returns a block, or `undefined` for
   * none this turn. Volatile state rides the user turn so the cached prefix never changes.
   * Returns a function that removes it.
   */
  addTurnState(source: () => string | undefined): () => void {
    this.#turnStates.add(source);
    return () => this.#turnStates.delete(source);
  }

  /** The tools agents may get. */
  get catalogue(): readonly Tool[] {
    return this.#parts.catalogue;
  }

  /**
   * The binding of a model reference, made once per process: a provider keeps what it learned
   * (output limits) when the user switches away and back.
   */
  model(ref?: string): Promise<ModelBinding> {
    const key = ref ?? "";
    let binding = this.#models.get(key);
    if (!binding) {
      binding = this.#parts.bindModel(ref);
      // A failed binding (no key, untrusted endpoint) is tried again next time.
      binding.catch(() => this.#models.delete(key));
      this.#models.set(key, binding);
    }
    return binding;
  }

  /** `provider/model` names from the configuration. */
  models(): string[] {
    return this.config.providers.flatMap((p) => p.models.map((m) => `${p.name}/${m}`));
  }

  /** Builds an agent from `spec`; every field defaults from the configuration. */
  async createAgent(spec: AgentSpec = {}): Promise<HostedAgent> {
    if (this.#closed) throw new Error("the host is closed");
    const p = this.#parts;
    const { config } = p;
    const binding = await this.model(spec.model);
    const { resolved, provider } = binding;
    const c = spec.context ?? {};

    // The session opens after the tool list is fixed; history reads it through this reference.
    const live: { session?: Session } = {};
    const history = new HistoryIndex({
      sessionId: "",
      messages: () => live.session?.messages ?? [],
      // Earlier sessions through the index kept beside them, loaded at the first search.
      store: { dir: p.sessionDir, currentId: () => live.session?.id },
    });
    const capabilities = new CapabilityHub();
    const planner = spec.role === "planner";
    // A subagent inherits nothing implicitly (spec §3.13): no memory, history, goal or
    // instruction files; its tools are bound to its grant.
    const child = spec.role === "subagent" ? spec.grant ?? { readOnly: true, depth: 1 } : undefined;
    if (p.mcp) {
      const source = p.mcp.capabilitySource();
      capabilities.addSource(
        planner
          ? withoutDestructive(source)
          : child && needsReadOnlyCapabilities(child)
          ? onlyReadOnly(source)
          : source,
      );
    }
    const warnings: string[] = [];
    let session: Session;
    let sessionPath: string | undefined;
    let resumed = false;
    let persist: ConstructorParameters<typeof ContextManager>[0]["persist"];
    let restored: { projection?: unknown; failures?: unknown } = {};
    let restoredGoal: ConstructorParameters<typeof Goals>[0] = {};
    let recordedTools: OfferedTool[] | undefined;
    let recordTools = (_tools: OfferedTool[]) => {};
    let record = (_record: TranscriptRecord) => {};
    let close = () => {};
    if (spec.transcript === "ephemeral") {
      session = new Session();
    } else {
      const opened = await openSession({
        // Planner sessions live apart, so `--continue` and `sessions list` see the user's.
        dir: planner
          ? join(p.sessionDir, "planner")
          : child
          ? join(p.sessionDir, "subagents")
          : p.sessionDir,
        workspace: p.workspaceRoot,
        model: `${resolved.provider.name}/${resolved.model}`,
        resume: spec.transcript?.resume,
        now: p.now?.(),
      });
      const { writer } = opened;
      session = opened.session;
      sessionPath = writer.path;
      resumed = opened.resumed;
      persist = {
        projection: (record) => writer.append({ t: "proj", p: record }),
        failure: (failure) => writer.append({ t: "fail", f: failure }),
      };
      restored = { projection: opened.projection, failures: opened.failures };
      restoredGoal = {
        restored: opened.goal,
        persist: (goal) => {
          try {
            writer.append({ t: "goal", g: goal });
          } catch {
            // Refused by the disk: it waits in the writer and goes out with the next record.
          }
        },
      };
      recordedTools = opened.tools;
      recordTools = (tools) => {
        try {
          writer.append({ t: "tools", tools });
        } catch {
          // Refused by the disk: it waits in the writer and goes out with the next record.
        }
      };
      record = (entry) => writer.append(entry);
      close = () => writer.close();
      if (opened.skippedLines > 0) {
        warnings.push(
          `skipped ${opened.skippedLines} damaged line(s) of ${writer.path} (e.g. a write cut short by a crash)`,
        );
      }
      if (opened.repaired > 0) {
        warnings.push(
          `${opened.repaired} tool call(s) were interrupted when the session last ended`,
        );
      }
    }
    live.session = session;
    this.#executors.set(session.id, {
      model: `${resolved.provider.name}/${resolved.model}`,
      effort: c.reasoningEffort ?? config.agent.reasoning_effort,
    });
    // The session's MCP tools are the ones it recorded, whatever the servers list now, so a
    // resumed session and a new agent on it (`/model`) send the same tool bytes.
    const planned = planTools({ catalogue: p.catalogue, mcp: p.mcp, recorded: recordedTools });
    warnings.push(...planned.warnings);
    const depth = child?.depth ?? 0;
    const subagents = this.#subagentRunner();
    const delegation = !planner && depth < subagents.maxDepth
      ? [taskTool({
        runner: subagents,
        parent: { sessionId: () => live.session?.id, depth },
        profile: (name) => findProfile(name, this.#profileDirs()),
        ephemeral: spec.transcript === "ephemeral",
        fleetDir: () => sessionPath && `${sessionPath.replace(/\.jsonl$/, "")}.fleet`,
      })]
      : [];
    const granted = child
      ? childTools({
        builtins: planned.tools.filter((t) => !planned.records.has(t)),
        useCapability: useCapabilityTool(capabilities),
        grant: child,
        root: p.workspaceRoot,
        shell: p.toolContext.shell,
      })
      : undefined;
    const selected = scoped(
      granted ? [...granted.tools, ...delegation] : scoped([
        ...planned.tools,
        historyTool(history),
        // Only a top-level agent may change what is remembered.
        ...memoryTools(p.facts, { owner: spec.parent === undefined }),
        useCapabilityTool(capabilities),
        ...planner ? [submitPlanTool()] : delegation,
      ], planner ? { allow: PLANNER_TOOLS } : undefined),
      spec.tools,
    );
    // The registry sorts by name, so the order here does not reach the model.
    const registry = new ToolRegistry(selected);
    const offered = selected.flatMap((t) => planned.records.get(t) ?? [])
      .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    if (!recordedTools || !sameOffered(recordedTools, offered)) recordTools(offered);
    // Differences found now are start-up warnings; later ones ride the next user turn.
    const notices = new ToolNotices();
    let started = false;
    const stopWatching = p.mcp?.watchTools?.(
      offered,
      (message) => started ? notices.push(message) : warnings.push(message),
    ) ?? (() => {});
    started = true;
    capabilities.register(toolResultCapability(() => session.messages));
    // A subagent never inherits the goal (spec §3.7); activation is never restored.
    const goals = (spec.goals ?? (spec.parent === undefined && !planner))
      ? new Goals({
        ...restoredGoal,
        bounds: {
          maxRounds: config.agent.max_goal_rounds,
          tokenBudget: config.agent.goal_token_budget,
        },
      })
      : undefined;
    for (const capability of goals?.capabilities() ?? []) capabilities.register(capability);
    // Only a top-level agent hands a plan in; a subagent's gate could not ask anyone anyway.
    if (spec.parent === undefined) capabilities.register(exitPlanModeCapability(this.planMode));
    const systemPrompt = spec.systemPrompt ?? SYSTEM_PROMPT;
    // A new agent on the same session (a model switch) measures against its last request.
    const topLevel = spec.parent === undefined && spec.transcript !== "ephemeral";
    const cacheMeter = topLevel && this.#meter?.session === session.id
      ? this.#meter.meter.use(provider)
      : CacheMeter.for(provider);
    if (topLevel) this.#meter = { session: session.id, meter: cacheMeter };
    const context = new ContextManager({
      provider,
      model: resolved.model,
      system: systemPrompt,
      tools: registry.schemas(),
      temperature: c.temperature ?? config.agent.temperature,
      contextWindow: binding.contextWindow(),
      onWindowLearned: (tokens) => binding.learnContextWindow(tokens),
      cacheMeter,
      compactRatio: c.compactRatio ?? config.agent.compact_ratio,
      estimator: new TokenEstimator(),
      persist,
      projection: restored.projection as ConstructorParameters<typeof ContextManager>[0][
        "projection"
      ],
      failures: restored.failures as ConstructorParameters<typeof ContextManager>[0]["failures"],
    });
    const approvals = spec.approvals === "stream" ? new StreamApprovals() : undefined;
    const turns = new TurnBuilder({
      workspaceRoot: p.workspaceRoot,
      workspace: p.toolContext.workspace,
      platform: p.platform,
      isGitRepo: p.isGitRepo,
      now: p.now,
      context,
      facts: p.facts,
      vision: binding.vision,
      references: spec.turn?.references,
      resources: p.resources,
      readGuard: p.toolContext.readGuard,
      isolated: child !== undefined,
      states: () => [
        ...[...this.#turnStates].flatMap((source) => source() ?? []),
        ...[goals?.turnBlock()].filter((block) => block !== undefined),
      ],
    });
    const turnSource = notices.around(turns)!;
    const agent = new Agent({
      provider,
      model: resolved.model,
      session,
      registry,
      systemPrompt,
      toolContext: granted?.shell ? { ...p.toolContext, shell: granted.shell } : p.toolContext,
      maxTurns: c.maxTurns ?? config.agent.max_turns,
      temperature: c.temperature ?? config.agent.temperature,
      reasoningEffort: c.reasoningEffort ?? config.agent.reasoning_effort,
      outputBudget: binding.outputBudget,
      price: resolved.price,
      budget: c.budget,
      turns: turnSource,
      context,
      gate: p.permissions.gate.view(approvals),
      cacheMeter,
      endsRunOn: planner ? [SUBMIT_PLAN] : undefined,
    });
    if (!this.#lockedDown) {
      // Read-only mode gives up Deno's write permission once the first transcript is open.
      this.#lockedDown = true;
      // Handles opened now stay writable: the indexes of the sessions folder are still saved.
      if (p.permissions.preset.strict) await reserveIndexWrites(p.sessionDir);
      await p.permissions.lockDown();
    }
    return new HostedAgent({
      spec,
      model: binding,
      session,
      sessionPath,
      resumed,
      context,
      registry,
      warnings,
      agent,
      approvals,
      close: () => {
        goals?.disarm();
        stopWatching();
        close();
        // A history index written after a search lands before the process may exit.
        return history.flush();
      },
      record,
      goals,
      claim: granted?.claim,
    });
  }

  /**
   * Runs one subagent through the host's one runner (spec §3.15), for entries other than the
   * `task` tool (`reasonix subagent try|run`, `/<profile> task`): its events, then its result.
   */
  runSubagent(
    spec: ProfileExecSpec,
    opts: { signal: AbortSignal },
  ): AsyncGenerator<AgentEvent, SubagentResult> {
    return this.#subagentRunner().run(spec, opts);
  }

  /** A subagent profile by name: the project's skills first, then the user's. */
  findProfile(name: string): Promise<Profile | undefined> {
    return findProfile(name, this.#profileDirs());
  }

  /** Every subagent profile, the project's and the user's, each name once. */
  listProfiles(): Promise<Profile[]> {
    return listProfiles(this.#profileDirs());
  }

  #profileDirs(): ProfileDirs {
    const p = this.#parts;
    return {
      root: p.workspaceRoot,
      workspace: p.toolContext.workspace,
      home: p.home,
      ...(p.userHome ? { userHome: p.userHome } : {}),
    };
  }

  /** The session's subagent runner: one scheduler for every agent of the host. */
  #subagentRunner(): SubagentRunner {
    const p = this.#parts;
    const a = p.config.agent;
    this.#subagents ??= new SubagentRunner({
      maker: this as unknown as ChildMaker,
      root: p.workspaceRoot,
      workspace: p.toolContext.workspace,
      maxDepth: a.max_subagent_depth,
      concurrency: a.max_subagent_concurrency,
      writers: a.max_parallel_writers,
      defaults: { model: a.subagent_model, effort: a.subagent_effort },
      executor: (sessionId) => sessionId === undefined ? undefined : this.#executors.get(sessionId),
      profileConfig: (name) => p.config.subagents?.[name],
      // Plan mode and the reply language are run options a child gets explicitly (§3.13).
      runOptions: () => ({
        planMode: this.planMode.active,
        ...(a.reasoning_language && a.reasoning_language !== "auto"
          ? { language: a.reasoning_language }
          : {}),
      }),
      transcripts: join(p.sessionDir, "subagents"),
      writeCapsule: writeCapsule,
    });
    return this.#subagents;
  }

  /** Stops MCP servers and releases what the host opened. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.mcp?.close();
    await this.#parts.close();
  }

  /** `await using host = await openHost(…)`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
