/**
 * The UI's view of the harness: run a turn, start over, switch model or effort, compact, resume.
 * `RuntimeBackend` implements it on `buildRuntime`, rebuilding the runtime when a setting
 * changes (a kept conversation is reopened from its transcript, so nothing is lost).
 *
 * @module
 */
import type { AgentEvent } from "../../core/agent/events.ts";
import type { CompactionReport } from "../../core/context/manager.ts";
import { listSessions, sessionsDir, userText } from "../../core/store/sessions.ts";
import type { ImagePart, Message } from "../../providers/types.ts";
import type { Runtime } from "../runtime.ts";
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
   */
  run(text: string, opts: { signal: AbortSignal; images?: ImagePart[] }): AsyncIterable<AgentEvent>;
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
  dispose(): Promise<void>;
}

/** Settings a rebuild may change. */
export interface RuntimeOverrides {
  model?: string;
  reasoningEffort?: string;
  /** Session id to reopen. */
  resume?: string;
}

/** How {@link RuntimeBackend} builds runtimes and finds MCP on them. */
export interface RuntimeBackendOptions {
  build(overrides: RuntimeOverrides): Promise<Runtime>;
  /** The Reasonix home, where sessions are stored. */
  home: string;
  /** MCP of a runtime, when it has one. */
  mcp?(runtime: Runtime): McpView | undefined;
}

/** A {@link ChatBackend} over `buildRuntime`. */
export class RuntimeBackend implements ChatBackend {
  #runtime: Runtime;
  #overrides: RuntimeOverrides;
  readonly #opts: RuntimeBackendOptions;

  private constructor(runtime: Runtime, overrides: RuntimeOverrides, opts: RuntimeBackendOptions) {
    this.#runtime = runtime;
    this.#overrides = overrides;
    this.#opts = opts;
  }

  /** Builds the first runtime. Throws what `buildRuntime` throws. */
  static async create(
    opts: RuntimeBackendOptions,
    initial: RuntimeOverrides = {},
  ): Promise<RuntimeBackend> {
    return new RuntimeBackend(await opts.build(initial), { ...initial, resume: undefined }, opts);
  }

  /** The current runtime. */
  get runtime(): Runtime {
    return this.#runtime;
  }

  info(): BackendInfo {
    const rt = this.#runtime;
    return {
      model: `${rt.resolved.provider.name}/${rt.resolved.model}`,
      contextWindow: rt.resolved.contextWindow,
      compactRatio: rt.config.agent.compact_ratio,
      effort: this.#overrides.reasoningEffort ?? rt.config.agent.reasoning_effort,
      mode: rt.config.permissions.mode,
      workspaceRoot: rt.workspaceRoot,
      sessionId: rt.session.id,
    };
  }

  warnings(): readonly string[] {
    return this.#runtime.warnings;
  }

  history(): readonly Message[] {
    return this.#runtime.session.messages;
  }

  async *run(
    text: string,
    opts: { signal: AbortSignal; images?: ImagePart[] },
  ): AsyncIterable<AgentEvent> {
    const notices: AgentEvent[] = [];
    const off = this.#runtime.onNotice((notice) => notices.push(notice));
    try {
      const input = opts.images?.length ? { text, images: opts.images } : { text };
      for await (const event of this.#runtime.agent.run(input, { signal: opts.signal })) {
        yield* notices.splice(0);
        yield event;
      }
      yield* notices.splice(0);
    } finally {
      off();
    }
  }

  models(): string[] {
    return this.#runtime.config.providers.flatMap((p) => p.models.map((m) => `${p.name}/${m}`));
  }

  async newConversation(): Promise<void> {
    const next = await this.#opts.build({ ...this.#overrides, resume: undefined });
    const old = this.#runtime;
    this.#runtime = next;
    await old.dispose();
  }

  switchModel(name: string): Promise<void> {
    return this.#reopen({ ...this.#overrides, model: name }, this.#runtime.session.id);
  }

  setEffort(effort: string | undefined): Promise<void> {
    // A request field, not part of the prefix: no rebuild, no MCP restart.
    this.#runtime.agent.configure({
      reasoningEffort: effort ?? this.#runtime.config.agent.reasoning_effort ?? null,
    });
    this.#overrides = { ...this.#overrides, reasoningEffort: effort };
    return Promise.resolve();
  }

  compact(opts: { signal: AbortSignal; instructions?: string }): Promise<CompactionReport[]> {
    return this.#runtime.compact(opts);
  }

  async sessions(): Promise<SessionChoice[]> {
    const dir = await sessionsDir(this.#opts.home, this.#runtime.workspaceRoot);
    return (await listSessions(dir)).map((s) => ({
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
    return this.#opts.mcp?.(this.#runtime);
  }

  dispose(): Promise<void> {
    return this.#runtime.dispose();
  }

  /**
   * Rebuilds on session `resume`. A transcript is locked while open, so the current runtime is
   * closed first; when the new one cannot be built, the previous settings and session come
   * back and the error is rethrown.
   */
  async #reopen(next: RuntimeOverrides, resume: string): Promise<void> {
    const previous = { overrides: this.#overrides, session: this.#runtime.session.id };
    await this.#runtime.dispose();
    try {
      this.#runtime = await this.#opts.build({ ...next, resume });
      this.#overrides = { ...next, resume: undefined };
    } catch (error) {
      this.#runtime = await this.#opts.build({ ...previous.overrides, resume: previous.session });
      throw error;
    }
  }
}

/** The user's own words of a stored user message (volatile blocks removed). */
export function storedUserText(message: Message): string {
  return userText(message.content);
}
