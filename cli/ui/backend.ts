/**
 * The UI's view of the harness: run a turn, start over, switch model or effort, compact, resume.
 * `HostBackend` implements it on a `Host`: a new conversation, another model or a resumed
 * session is a new agent on the same host, so MCP servers, learned limits and session grants
 * stay. Approvals arrive in the event stream and are handed to the UI's broker.
 *
 * @module
 */
import type { AgentEvent, UserInput } from "../../core/agent/events.ts";
import type { ApprovalBroker } from "../../core/agent/approval.ts";
import type { CompactionReport } from "../../core/context/manager.ts";
import type { AgentSpec, Host, HostedAgent } from "../../core/host/mod.ts";
import type { FactStore } from "../../core/memory/mod.ts";
import type { Goals } from "../../core/goal/mod.ts";
import { Coordinator } from "../../core/coordinator/mod.ts";
import type { PlanMode } from "../../core/plan/mod.ts";
import type { SuppliedText } from "../../core/references/mod.ts";
import { listSessions, userText } from "../../core/store/sessions.ts";
import type { ImagePart, Message, ToolCall } from "../../providers/types.ts";
import { ConfigError } from "../../core/config/errors.ts";
import { type ApprovalPreview, approvalPreview } from "./approval_preview.ts";
import { type InitOutcome, runInit } from "./init_command.ts";
import type { McpView } from "./hooks.ts";

/** Facts the status line and banners show. */
export interface BackendInfo {
  /** `provider/model`. */
  model: string;
  contextWindow: number;
  compactRatio: number;
  effort?: string;
  /** Permission preset. */
  mode?: string;
  workspaceRoot: string;
  sessionId: string;
}

/** A saved session, for `/resume`. */
export interface SessionChoice {
  id: string;
  title: string;
  updated: Date;
  messages: number;
}

/** Everything the interactive UI asks of the harness. */
export interface ChatBackend {
  info(): BackendInfo;
  /** Warnings from building the runtime (configuration, damaged transcript lines). */
  warnings(): readonly string[];
  /** The conversation so far (shown after `/resume`). */
  history(): readonly Message[];
  /**
   * Runs one user turn. `images` go with the message; the runtime's notices about them (an
   * image described, or dropped) arrive as `notice` events before the turn's first event.
   * `supplied` marks the parts of `text` the user did not type (a project command's template,
   * an MCP prompt), whose `@` references stay inside the workspace.
   */
  run(text: string, opts: RunOptions): AsyncIterable<AgentEvent>;
  /** `provider/model` names from the configuration, for `/model`. */
  models(): string[];
  newConversation(): Promise<void>;
  /** Switches model and keeps the conversation. */
  switchModel(name: string): Promise<void>;
  /** Sets the reasoning effort (`undefined`: the configured default), keeping the conversation. */
  setEffort(effort: string | undefined): Promise<void>;
  /** Summarizes the conversation now; `instructions` say what the summary must keep. */
  compact(opts: { signal: AbortSignal; instructions?: string }): Promise<CompactionReport[]>;
  sessions(): Promise<SessionChoice[]>;
  resume(id: string): Promise<void>;
  /** MCP, when the runtime has it. */
  mcp(): McpView | undefined;
  /**
   * Switches the permission mode for later calls (Shift+Tab, `/permissions`) through the
   * host's permission API; returns the mode now active. Throws `ConfigError` for a mode a
   * session cannot move to. Absent: the mode is fixed for the session.
   */
  setPermissionMode?(mode: string): string;
  /**
   * The host's plan mode (`/plan`, Shift+Tab), independent of the permission mode. Absent:
   * plan mode is not available.
   */
  planMode?(): PlanMode | undefined;
  /**
   * `/<profile> task`: runs the subagent profile `name` on `task` through the host's one
   * subagent runner, its events as they happen, ending with a `done`; undefined when there is
   * no such profile. Absent: profiles are not available.
   */
  runProfile?(
    name: string,
    task: string,
    opts: { signal: AbortSignal },
  ): Promise<AsyncIterable<AgentEvent> | undefined>;
  /**
   * The subagent profiles `/<profile> task` can run (the project's and the user's), for slash
   * completion. Absent: profiles are not available.
   */
  profiles?(): Promise<{ name: string; description: string }[]>;
  /** What an approval prompt shows of `call`: an edit's diff, a command's directory and sandbox. */
  preview?(call: ToolCall, opts: { signal: AbortSignal }): Promise<ApprovalPreview>;
  /** The configured models with why each cannot be used now (a missing key), for `/model`. */
  modelChoices?(): Promise<ModelChoice[]>;
  /**
   * `/init`: drafts `AGENTS.md` at the workspace root; an existing one only when `replace`
   * (the user chose to). In a read-only mode the draft is returned, not written.
   */
  initAgents?(opts: { replace: boolean; signal: AbortSignal }): Promise<InitOutcome>;
  /** Remembered facts, for `/memory` (absent: the command says memory is unavailable). */
  memory?(): FactStore | undefined;
  /**
   * The current session's goal, for `/goal`, the idle goal driver and the status line
   * (absent or undefined: Goal mode is not available).
   */
  goals?(): Goals | undefined;
  dispose(): Promise<void>;
}

/** Options of {@linkcode ChatBackend.run}. */
export interface RunOptions {
  signal: AbortSignal;
  images?: ImagePart[];
  supplied?: readonly SuppliedText[];
  /** Trusted routing metadata (a goal's explicit start), never parsed from `text`. */
  route?: UserInput["route"];
}

/** A configured model for `/model`. */
export interface ModelChoice {
  /** `provider/model`. */
  name: string;
  /** Why it cannot be used now, e.g. `DEEPSEEK_API_KEY is not set`. */
  unavailable?: string;
}

/** Settings a new agent may change. */
export interface AgentOverrides {
  model?: string;
  reasoningEffort?: string;
  /** Session id to reopen. */
  resume?: string;
}

/** How {@link HostBackend} builds agents and shows approvals. */
export interface HostBackendOptions {
  host: Host;
  /** Shows `approval_request` events and returns the user's answer. */
  broker: ApprovalBroker;
  /** MCP of the host, for the UI. */
  mcp?: McpView;
  /** The spec every agent starts from (the overrides go on top). */
  spec?: AgentSpec;
}

/** A {@link ChatBackend} over a {@link Host}. */
export class HostBackend implements ChatBackend {
  #agent: HostedAgent;
  #coordinator: Coordinator | undefined;
  #overrides: AgentOverrides;
  readonly #opts: HostBackendOptions;

  private constructor(agent: HostedAgent, overrides: AgentOverrides, opts: HostBackendOptions) {
    this.#agent = agent;
    this.#overrides = overrides;
    this.#opts = opts;
  }

  /** Builds the first agent. Throws what `host.createAgent` throws. */
  static async create(
    opts: HostBackendOptions,
    initial: AgentOverrides = {},
  ): Promise<HostBackend> {
    const backend = new HostBackend(undefined as unknown as HostedAgent, {}, opts);
    backend.#agent = await backend.#build(initial);
    backend.#overrides = { ...initial, resume: undefined };
    try {
      // A configured planner model that cannot be used is a configuration error at start.
      await backend.#coordinatorFor(backend.#agent);
    } catch (error) {
      await backend.#agent.close();
      throw error;
    }
    return backend;
  }

  /** The coordinator over `agent` (spec §3.5); a new agent gets a new one. */
  async #coordinatorFor(agent: HostedAgent): Promise<Coordinator> {
    if (this.#coordinator?.executor === agent) return this.#coordinator;
    await this.#coordinator?.close();
    this.#coordinator = await Coordinator.create({
      host: this.#opts.host,
      executor: agent,
      plannerModel: this.#opts.host.config.agent.planner_model,
    });
    return this.#coordinator;
  }

  /** The current agent. */
  get agent(): HostedAgent {
    return this.#agent;
  }

  /** The host every agent of this UI is built on. */
  get host(): Host {
    return this.#opts.host;
  }

  info(): BackendInfo {
    const resolved = this.#agent.model.resolved;
    const config = this.#opts.host.config;
    return {
      model: `${resolved.provider.name}/${resolved.model}`,
      contextWindow: resolved.contextWindow,
      compactRatio: config.agent.compact_ratio,
      effort: this.#overrides.reasoningEffort ?? config.agent.reasoning_effort,
      mode: this.#opts.host.permissionMode,
      workspaceRoot: this.#opts.host.workspaceRoot,
      sessionId: this.#agent.session.id,
    };
  }

  warnings(): readonly string[] {
    return [...this.#opts.host.warnings, ...this.#agent.warnings];
  }

  history(): readonly Message[] {
    return this.#agent.session.messages;
  }

  async *run(text: string, opts: RunOptions): AsyncIterable<AgentEvent> {
    const input = {
      text,
      ...(opts.images?.length ? { images: opts.images } : {}),
      ...(opts.supplied?.length ? { supplied: opts.supplied } : {}),
      ...(opts.route ? { route: opts.route } : {}),
    };
    const runner = await this.#coordinatorFor(this.#agent);
    for await (const event of runner.run(input, { signal: opts.signal })) {
      if (event.type === "approval_request" && event.respond) {
        const respond = event.respond;
        // The modal answers; a cancelled turn withdraws the request (the gate sees the abort).
        this.#opts.broker.request(event.request, { signal: opts.signal }).then(
          respond,
          () => {},
        );
      }
      yield event;
    }
  }

  async runProfile(
    name: string,
    task: string,
    opts: { signal: AbortSignal },
  ): Promise<AsyncIterable<AgentEvent> | undefined> {
    const host = this.#opts.host;
    const profile = await host.findProfile(name);
    if (!profile) return undefined;
    const parent = this.#agent.session.id;
    return (async function* (): AsyncIterable<AgentEvent> {
      const it = host.runSubagent(
        { task, profile, parent: { sessionId: parent, depth: 0 } },
        { signal: opts.signal },
      );
      while (true) {
        const step = await it.next();
        if (!step.done) {
          yield step.value;
          continue;
        }
        const r = step.value;
        yield {
          type: "done",
          status: r.status,
          text: r.text,
          turns: r.turns,
          toolCalls: r.receipts.commands.length,
          usage: r.usage,
          ...(r.error ? { error: r.error } : {}),
        };
        return;
      }
    })();
  }

  async profiles(): Promise<{ name: string; description: string }[]> {
    const profiles = await this.#opts.host.listProfiles();
    return profiles.map((p) => ({ name: p.name, description: p.description }));
  }

  models(): string[] {
    return this.#opts.host.models();
  }

  async modelChoices(): Promise<ModelChoice[]> {
    // Binding a model resolves its key; the host keeps a binding that worked for the switch.
    return await Promise.all(
      this.models().map(async (name) => {
        try {
          await this.#opts.host.model(name);
          return { name };
        } catch (error) {
          const problem = error instanceof ConfigError ? error.problem : (error as Error)?.message;
          return { name, unavailable: problem ?? String(error) };
        }
      }),
    );
  }

  initAgents(opts: { replace: boolean; signal: AbortSignal }): Promise<InitOutcome> {
    const host = this.#opts.host;
    return runInit({
      root: host.workspaceRoot,
      workspace: host.workspace,
      replace: opts.replace,
      readOnly: host.permissions.preset.strict,
      signal: opts.signal,
    });
  }

  setPermissionMode(mode: string): string {
    return this.#opts.host.setPermissionMode(mode);
  }

  planMode(): PlanMode {
    return this.#opts.host.planMode;
  }

  preview(call: ToolCall, opts: { signal: AbortSignal }): Promise<ApprovalPreview> {
    const host = this.#opts.host;
    return approvalPreview(call, {
      workspace: host.workspace,
      root: host.workspaceRoot,
      mode: host.permissionMode,
      backend: host.permissions.backend,
      signal: opts.signal,
    });
  }

  async newConversation(): Promise<void> {
    const next = await this.#build({ ...this.#overrides, resume: undefined });
    const old = this.#agent;
    this.#agent = next;
    await old.close();
  }

  async switchModel(name: string): Promise<void> {
    // The same session on another model: a goal the user armed stays armed.
    const armed = this.#agent.goals?.due === true;
    await this.#reopen({ ...this.#overrides, model: name }, this.#agent.session.id);
    if (armed && this.#agent.goals?.state?.status === "active") {
      this.#agent.goals.resume();
      this.#agent.goals.drain();
    }
  }

  goals(): Goals | undefined {
    return this.#agent.goals;
  }

  setEffort(effort: string | undefined): Promise<void> {
    // A request field, not part of the prefix: no new agent.
    this.#agent.configure({
      reasoningEffort: effort ?? this.#opts.host.config.agent.reasoning_effort ?? null,
    });
    this.#overrides = { ...this.#overrides, reasoningEffort: effort };
    return Promise.resolve();
  }

  compact(opts: { signal: AbortSignal; instructions?: string }): Promise<CompactionReport[]> {
    return this.#agent.compact(opts);
  }

  async sessions(): Promise<SessionChoice[]> {
    return (await listSessions(this.#opts.host.sessionDir)).map((s) => ({
      id: s.meta.id,
      title: s.title,
      updated: s.updated,
      messages: s.messages,
    }));
  }

  resume(id: string): Promise<void> {
    return this.#reopen(this.#overrides, id);
  }

  mcp(): McpView | undefined {
    return this.#opts.mcp;
  }

  memory(): FactStore {
    return this.#opts.host.facts;
  }

  /** Closes the current agent; the host belongs to whoever opened it. */
  async dispose(): Promise<void> {
    await this.#coordinator?.close();
    await this.#agent.close();
  }

  #build(o: AgentOverrides): Promise<HostedAgent> {
    const base = this.#opts.spec ?? {};
    return this.#opts.host.createAgent({
      ...base,
      approvals: "stream",
      ...(o.model !== undefined ? { model: o.model } : {}),
      context: {
        ...base.context,
        ...(o.reasoningEffort !== undefined ? { reasoningEffort: o.reasoningEffort } : {}),
      },
      transcript: { resume: o.resume },
    });
  }

  /**
   * A new agent on session `resume`. A transcript is locked while open, so the current agent
   * is closed first; when the new one cannot be built, the previous settings and session come
   * back and the error is rethrown.
   */
  async #reopen(next: AgentOverrides, resume: string): Promise<void> {
    const previous = { overrides: this.#overrides, session: this.#agent.session.id };
    await this.#agent.close();
    try {
      this.#agent = await this.#build({ ...next, resume });
      this.#overrides = { ...next, resume: undefined };
    } catch (error) {
      this.#agent = await this.#build({ ...previous.overrides, resume: previous.session });
      throw error;
    }
  }
}

/** The user's own words of a stored user message (volatile blocks removed). */
export function storedUserText(message: Message): string {
  return userText(message.content);
}
