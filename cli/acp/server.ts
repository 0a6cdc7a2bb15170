/**
 * The ACP agent: sessions, prompts, cancellation, modes and approvals, rendered from the one
 * event stream. Each ACP session is one Reasonix session (its id is the transcript's id, so
 * `session/load` reopens it), built with `host.createAgent` on a host opened per working
 * directory by `cli/host.ts`, exactly as `reasonix run` and the interactive UI build theirs.
 * The transport is an {@linkcode AcpPeer}, so the SDK stays in `connection.ts`.
 *
 * @module
 */
import { relative, resolve } from "node:path";
import type {
  AuthenticateRequest,
  AvailableCommand,
  CancelNotification,
  InitializeRequest,
  InitializeResponse,
  ListSessionsRequest,
  ListSessionsResponse,
  LoadSessionRequest,
  LoadSessionResponse,
  NewSessionRequest,
  NewSessionResponse,
  PermissionOption,
  PromptRequest,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionModeState,
  SessionNotification,
  SessionUpdate,
  SetSessionModeRequest,
  ToolCallContent,
} from "@agentclientprotocol/sdk";
import type { AgentEvent, RunStatus, UserInput } from "../../core/agent/events.ts";
import type { ApprovalChoice, ApprovalRequest } from "../../core/agent/approval.ts";
import {
  commandSources,
  type CustomCommand,
  expandTemplateParts,
  loadCustomCommands,
} from "../../core/commands/mod.ts";
import { ConfigError } from "../../core/config/errors.ts";
import { Coordinator } from "../../core/coordinator/mod.ts";
import type { HostedAgent } from "../../core/host/mod.ts";
import { findPreset, type PresetName, SESSION_MODES } from "../../core/permission/mod.ts";
import { listSessions } from "../../core/store/sessions.ts";
import { ReasonixError } from "../../errors.ts";
import type { ToolCall } from "../../providers/types.ts";
import { decodeText } from "../../tools/builtin/text_edit.ts";
import { type CliHost, type HostFlags, openHost } from "../host.ts";
import { version } from "../version.ts";
import { editDiff, textBefore } from "./diff.ts";
import { promptInput } from "./prompt.ts";
import {
  callKind,
  planEntries,
  replayUpdates,
  stopReason,
  textContent,
  toolCallStarted,
  toolLocations,
} from "./updates.ts";

/** The protocol version this agent speaks (ACP v1). */
export const ACP_PROTOCOL_VERSION = 1;

/** The client side as the agent uses it; `connection.ts` implements it over the SDK. */
export interface AcpPeer {
  /** Sends a `session/update` notification. */
  update(params: SessionNotification): Promise<void>;
  /** Asks the user through `session/request_permission`; `signal` withdraws the request. */
  requestPermission(
    params: RequestPermissionRequest,
    opts: { signal: AbortSignal },
  ): Promise<RequestPermissionResponse>;
}

/** A protocol error for the client: JSON-RPC code, message and optional data. */
export class AcpError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** Extra data for the client. */
  readonly data?: unknown;
  /** An error answer with `code`. */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "AcpError";
    this.code = code;
    this.data = data;
  }
}

/** JSON-RPC and ACP error codes the agent answers with. */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const AUTH_REQUIRED = -32000;
const NOT_FOUND = -32002;

/** Options of {@linkcode AcpServer}. */
export interface AcpServerOptions {
  peer: AcpPeer;
  /** The environment keys and settings are read from. */
  env: Record<string, string | undefined>;
  /** `-m` and the permission flags of `reasonix acp`. */
  flags: HostFlags;
  /** Diagnostics (stderr). */
  log: (line: string) => void;
}

/** ACP's built-in slash commands; the project's and user's command files come after. */
const BUILTIN_COMMANDS: readonly AvailableCommand[] = [
  {
    name: "compact",
    description: "Summarize the conversation now to free context",
    input: { hint: "what the summary must keep" },
  },
  { name: "plan", description: "Turn plan mode on or off" },
];

/** The id of plan mode among the session modes. */
const PLAN_MODE = "plan";

interface CallState {
  call: ToolCall;
  /** The diff shown before the call ran, when it is an edit that applies. */
  preview?: ToolCallContent;
  started: boolean;
}

/** One open ACP session. */
interface AcpSession {
  id: string;
  host: CliHost;
  agent: HostedAgent;
  coordinator: Coordinator;
  commands: CustomCommand[];
  turn?: AbortController;
  calls: Map<string, CallState>;
}

function isMissingKey(error: unknown): error is ConfigError {
  return error instanceof ConfigError && /\bis not set\b/.test(error.problem);
}

/** A Reasonix error as a protocol error; anything else is rethrown. */
function asProtocolError(error: unknown): never {
  if (error instanceof AcpError) throw error;
  if (isMissingKey(error)) throw new AcpError(AUTH_REQUIRED, error.message, { code: error.code });
  if (error instanceof ReasonixError) {
    const notFound = error.code === "session_not_found";
    throw new AcpError(notFound ? NOT_FOUND : INVALID_PARAMS, error.message, { code: error.code });
  }
  throw error;
}

/** The Reasonix ACP agent. */
export class AcpServer {
  readonly #opts: AcpServerOptions;
  readonly #hosts = new Map<string, Promise<CliHost>>();
  readonly #sessions = new Map<string, AcpSession>();
  /** The mode each host's sessions were last told. */
  readonly #modeSent = new Map<CliHost, string>();

  /** An agent that talks to `opts.peer`. */
  constructor(opts: AcpServerOptions) {
    this.#opts = opts;
  }

  /** `initialize`: what this agent can do and how it authenticates. */
  initialize(_params: InitializeRequest): InitializeResponse {
    return {
      protocolVersion: ACP_PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: false, sse: false },
        sessionCapabilities: { list: {} },
      },
      authMethods: [{
        id: "api-key",
        name: "Provider API key",
        description: "Set the key your provider's api_key_env names (DEEPSEEK_API_KEY by " +
          "default) in the editor's environment or in ~/.reasonix/.env, or run `reasonix " +
          "setup` in a terminal. No sign-in is needed when the key is there.",
      }],
      agentInfo: { name: "reasonix", title: "Reasonix", version: version() },
    };
  }

  /** `authenticate`: succeeds when the default model's key can be found now. */
  async authenticate(_params: AuthenticateRequest): Promise<void> {
    try {
      const host = await this.#host(Deno.cwd());
      await host.model(this.#opts.flags.model);
    } catch (error) {
      asProtocolError(error);
    }
  }

  /** `session/new`: a new Reasonix session in `cwd`. */
  async newSession(params: NewSessionRequest): Promise<NewSessionResponse> {
    const session = await this.#open(params.cwd, undefined);
    this.#afterResponse(() => this.#announce(session));
    return { sessionId: session.id, modes: this.#modes(session.host) };
  }

  /** `session/load`: reopens a stored session and replays it as updates before answering. */
  async loadSession(params: LoadSessionRequest): Promise<LoadSessionResponse> {
    await this.#closeSession(params.sessionId);
    const session = await this.#open(params.cwd, params.sessionId);
    for (
      const update of replayUpdates(session.agent.session.messages, session.host.workspaceRoot)
    ) {
      await this.#send(session, update);
    }
    this.#afterResponse(() => this.#announce(session));
    return { modes: this.#modes(session.host) };
  }

  /** `session/list`: this workspace's stored sessions, newest first. */
  async listSessions(params: ListSessionsRequest): Promise<ListSessionsResponse> {
    const cwd = params.cwd ?? Deno.cwd();
    let host: CliHost;
    try {
      host = await this.#host(cwd);
    } catch (error) {
      asProtocolError(error);
    }
    const sessions = await listSessions(host.sessionDir, { limit: 100 });
    return {
      sessions: sessions.map((s) => ({
        sessionId: s.meta.id,
        cwd: host.workspaceRoot,
        title: s.title || null,
        updatedAt: s.updated.toISOString(),
      })),
    };
  }

  /** `session/set_mode`: a permission mode, or plan mode. */
  setMode(params: SetSessionModeRequest): void {
    const session = this.#session(params.sessionId);
    const host = session.host;
    if (params.modeId === PLAN_MODE) host.planMode.enter();
    else {
      if (!this.#modes(host).availableModes.some((m) => m.id === params.modeId)) {
        throw new AcpError(INVALID_PARAMS, `unknown mode "${params.modeId}"`);
      }
      host.planMode.exit();
      try {
        if (params.modeId !== host.permissionMode) host.setPermissionMode(params.modeId);
      } catch (error) {
        asProtocolError(error);
      }
    }
    this.#modeChanged(host);
  }

  /** `session/cancel`: stops the running prompt; it answers with `cancelled`. */
  cancel(params: CancelNotification): void {
    this.#sessions.get(params.sessionId)?.turn?.abort(
      new DOMException("Cancelled by the client", "AbortError"),
    );
  }

  /** `session/prompt`: runs one user turn, streaming its events as updates. */
  async prompt(params: PromptRequest): Promise<PromptResponse> {
    const session = this.#session(params.sessionId);
    if (session.turn) {
      throw new AcpError(INVALID_PARAMS, "a prompt is already running in this session");
    }
    const controller = new AbortController();
    session.turn = controller;
    const signal = controller.signal;
    try {
      const input = promptInput(params.prompt, session.host.workspaceRoot);
      const handled = await this.#slash(session, input, signal);
      if (handled === "done") return { stopReason: signal.aborted ? "cancelled" : "end_turn" };
      let status: RunStatus = "completed";
      let failure: { code: string; message: string } | undefined;
      for await (const event of session.coordinator.run(handled, { signal })) {
        await this.#render(session, event, signal);
        if (event.type === "done") {
          status = event.status;
          failure = event.error;
        }
      }
      if (signal.aborted) return { stopReason: "cancelled" };
      if (status === "error" && failure) {
        throw new AcpError(INTERNAL_ERROR, failure.message, { code: failure.code });
      }
      return { stopReason: stopReason(status) };
    } catch (error) {
      if (signal.aborted) return { stopReason: "cancelled" };
      throw error;
    } finally {
      session.turn = undefined;
      session.calls.clear();
    }
  }

  /** Stops every turn and closes every session and host. */
  async close(): Promise<void> {
    for (const id of [...this.#sessions.keys()]) await this.#closeSession(id);
    for (const host of this.#hosts.values()) {
      await host.then((h) => h.close(), () => {});
    }
    this.#hosts.clear();
  }

  /** The host of working directory `cwd`, opened once. */
  #host(cwd: string): Promise<CliHost> {
    const key = resolve(cwd);
    let host = this.#hosts.get(key);
    if (!host) {
      host = openHost({
        cwd: key,
        env: this.#opts.env,
        flags: this.#opts.flags,
      }).then((h) => {
        for (const warning of h.warnings) this.#opts.log(`warning: ${warning}`);
        this.#modeSent.set(h, this.#modes(h).currentModeId);
        // Plan mode can end inside a turn (an approved plan); the client's mode follows.
        h.planMode.subscribe(() => this.#modeChanged(h));
        return h;
      });
      // A host that failed (no key yet) is opened again next time.
      host.catch(() => this.#hosts.delete(key));
      this.#hosts.set(key, host);
    }
    return host;
  }

  async #open(cwd: string, resume: string | undefined): Promise<AcpSession> {
    let host: CliHost;
    let agent: HostedAgent | undefined;
    try {
      host = await this.#host(cwd);
      agent = await host.createAgent({
        model: this.#opts.flags.model,
        approvals: "stream",
        ...(resume !== undefined ? { transcript: { resume } } : {}),
      });
      const coordinator = await Coordinator.create({
        host,
        executor: agent,
        plannerModel: host.config.agent.planner_model,
      });
      for (const warning of agent.warnings) this.#opts.log(`warning: ${warning}`);
      const loaded = await loadCustomCommands(
        commandSources({
          workspaceRoot: host.workspaceRoot,
          home: host.home,
          workspace: host.workspace,
        }),
        { reserved: new Set(BUILTIN_COMMANDS.map((c) => c.name)) },
      );
      for (const notice of loaded.notices) this.#opts.log(`warning: ${notice}`);
      const session: AcpSession = {
        id: agent.session.id,
        host,
        agent,
        coordinator,
        commands: loaded.commands,
        calls: new Map(),
      };
      this.#sessions.set(session.id, session);
      return session;
    } catch (error) {
      await agent?.close();
      asProtocolError(error);
    }
  }

  async #closeSession(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    session.turn?.abort(new DOMException("The session was closed", "AbortError"));
    await session.coordinator.close();
    await session.agent.close();
  }

  #session(id: string): AcpSession {
    const session = this.#sessions.get(id);
    if (!session) throw new AcpError(NOT_FOUND, `no open session "${id}"; load it first`);
    return session;
  }

  /** Runs `task` once the current response is on its way (updates about a new session). */
  #afterResponse(task: () => Promise<void>): void {
    setTimeout(() => task().catch((error) => this.#opts.log(`acp: ${error}`)), 0);
  }

  #send(session: AcpSession, update: SessionUpdate): Promise<void> {
    return this.#opts.peer.update({ sessionId: session.id, update });
  }

  /** The commands and the mode of a session that just opened. */
  async #announce(session: AcpSession): Promise<void> {
    if (!this.#sessions.has(session.id)) return;
    await this.#send(session, {
      sessionUpdate: "available_commands_update",
      availableCommands: [
        ...BUILTIN_COMMANDS,
        ...session.commands.map((c) => ({
          name: c.name,
          description: c.description,
          ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}),
        })),
      ],
    });
  }

  /** The modes a session offers: the permission modes it may switch between, and plan mode. */
  #modes(host: CliHost): SessionModeState {
    const now = host.permissionMode;
    const names = SESSION_MODES.includes(now as PresetName) ? SESSION_MODES : [now];
    return {
      currentModeId: host.planMode.active ? PLAN_MODE : now,
      availableModes: [
        ...names.map((name) => ({
          id: name,
          name,
          description: findPreset(name)?.summary ?? null,
        })),
        {
          id: PLAN_MODE,
          name: "plan",
          description: "research and plan; nothing is changed until you approve the plan",
        },
      ],
    };
  }

  /** Tells the host's sessions its mode, when it is not what they were told last. */
  #modeChanged(host: CliHost): void {
    const currentModeId = this.#modes(host).currentModeId;
    if (this.#modeSent.get(host) === currentModeId) return;
    this.#modeSent.set(host, currentModeId);
    for (const session of this.#sessions.values()) {
      if (session.host !== host) continue;
      this.#send(session, { sessionUpdate: "current_mode_update", currentModeId }).catch(() => {});
    }
  }

  /**
   * A turn that starts with a slash command: ACP's own (`/compact`, `/plan`) run here and end
   * the turn (`done`); a command file's template becomes the turn's text.
   */
  async #slash(
    session: AcpSession,
    input: UserInput,
    signal: AbortSignal,
  ): Promise<UserInput | "done"> {
    const m = /^\/([A-Za-z0-9][A-Za-z0-9._-]*)(?:\s+([\s\S]*))?$/.exec(input.text);
    if (!m) return input;
    const [, name, args = ""] = m;
    const say = (text: string) =>
      this.#send(session, {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text },
      });
    if (name === "compact") {
      const reports = await session.agent.compact({
        signal,
        ...(args.trim() ? { instructions: args.trim() } : {}),
      });
      await say(reports.length ? "Compacted the conversation." : "Nothing to compact yet.");
      return "done";
    }
    if (name === PLAN_MODE) {
      const on = session.host.planMode.toggle();
      await say(on ? "Plan mode is on." : "Plan mode is off.");
      return "done";
    }
    const custom = session.commands.find((c) => c.name === name);
    if (!custom) return input;
    const { text, fromTemplate } = expandTemplateParts(custom.template, args);
    // A project's command file is the repository's text; the user's own commands are theirs.
    const source = relative(session.host.workspaceRoot, custom.path);
    return {
      ...input,
      text,
      ...(custom.scope === "project"
        ? { supplied: fromTemplate.map((span) => ({ ...span, source })) }
        : {}),
    };
  }

  /** Shows one event. */
  async #render(session: AcpSession, event: AgentEvent, signal: AbortSignal): Promise<void> {
    const root = session.host.workspaceRoot;
    // A subagent's own activity is shown through its `task` call; its ids are not the session's.
    if (event.agent === "subagent" && event.type !== "approval_request") return;
    switch (event.type) {
      case "text":
        // The planner's prose is its thinking; the executor's is the answer.
        return await this.#send(session, {
          sessionUpdate: event.agent === "planner" ? "agent_thought_chunk" : "agent_message_chunk",
          content: { type: "text", text: event.text },
        });
      case "reasoning":
        return await this.#send(session, {
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text: event.text },
        });
      case "notice":
        return await this.#send(session, {
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text: `${event.message}\n` },
        });
      case "tool_start": {
        const call = event.call;
        const preview = await editDiff(call, { workspace: session.host.workspace, root, signal });
        session.calls.set(call.id, { call, preview, started: false });
        return await this.#send(session, toolCallStarted(call, root, preview && [preview]));
      }
      case "permission": {
        const state = session.calls.get(event.callId);
        if (!event.allowed || !state || state.started) return;
        state.started = true;
        return await this.#send(session, {
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: "in_progress",
        });
      }
      case "tool_progress": {
        const state = session.calls.get(event.callId);
        if (!state || state.started) return;
        state.started = true;
        return await this.#send(session, {
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: "in_progress",
        });
      }
      case "tool_end": {
        const state = session.calls.get(event.call.id);
        const failed = event.result.isError === true;
        const diff = failed ? undefined : await this.#finalDiff(session, event, state, signal);
        return await this.#send(session, {
          sessionUpdate: "tool_call_update",
          toolCallId: event.call.id,
          status: failed ? "failed" : "completed",
          content: [...(diff ? [diff] : []), textContent(event.result.content)],
        });
      }
      case "approval_request":
        return this.#ask(session, event.request, event.respond, signal);
      case "plan":
        return await this.#send(session, {
          sessionUpdate: "plan",
          entries: planEntries(event.plan),
        });
      default:
        return;
    }
  }

  /**
   * The diff an edit made, from the tool's own unified diff applied backwards to the file as
   * it is now (exact even when the edit ran before its preview was read); else the preview.
   */
  async #finalDiff(
    session: AcpSession,
    event: Extract<AgentEvent, { type: "tool_end" }>,
    state: CallState | undefined,
    signal: AbortSignal,
  ): Promise<ToolCallContent | undefined> {
    const meta = event.result.meta;
    const path = typeof meta?.path === "string" ? meta.path : undefined;
    if (!path || !["write_file", "edit_file", "multi_edit"].includes(event.call.name)) {
      return state?.preview;
    }
    try {
      const decoded = decodeText(await session.host.workspace.readFile(path, { signal }));
      if (!decoded.ok) return state?.preview;
      const newText = decoded.value.text;
      if (meta?.created === true) return { type: "diff", path, oldText: null, newText };
      if (typeof meta?.diff !== "string") return state?.preview;
      const oldText = textBefore(newText, meta.diff);
      return oldText === undefined ? state?.preview : { type: "diff", path, oldText, newText };
    } catch {
      return state?.preview;
    }
  }

  /**
   * Asks the client about an approval request and answers the gate. Not awaited by the event
   * loop: a cancelled turn withdraws the request (`$/cancel_request`) and the gate sees the
   * abort.
   */
  #ask(
    session: AcpSession,
    request: ApprovalRequest,
    respond: ((choice: ApprovalChoice) => void) | undefined,
    signal: AbortSignal,
  ): void {
    const answer = respond ?? ((choice) => session.agent.answer(request.id, choice));
    const state = request.callId ? session.calls.get(request.callId) : undefined;
    const plan = request.kind === "plan";
    if (plan && request.detail) {
      this.#send(session, {
        sessionUpdate: "plan",
        entries: planEntries({ title: request.summary, text: request.detail }),
      }).catch(() => {});
    }
    const options: PermissionOption[] = plan
      ? [
        { optionId: "once", name: "Approve the plan", kind: "allow_once" },
        { optionId: "deny", name: "Keep planning", kind: "reject_once" },
      ]
      : [
        { optionId: "once", name: "Allow once", kind: "allow_once" },
        {
          optionId: "session",
          name: request.sessionScope
            ? `Allow for this session: ${request.sessionScope}`
            : "Allow for this session",
          kind: "allow_always",
        },
        { optionId: "deny", name: "Reject", kind: "reject_once" },
      ];
    const content: ToolCallContent[] = state?.preview
      ? [state.preview]
      : request.detail
      ? [textContent(request.detail)]
      : [];
    const toolCall = {
      toolCallId: request.callId ?? request.id,
      title: request.summary,
      kind: plan ? "switch_mode" as const : state ? callKind(state.call) : "other" as const,
      status: "pending" as const,
      ...(content.length ? { content } : {}),
      ...(state ? { locations: toolLocations(state.call, session.host.workspaceRoot) } : {}),
    };
    this.#opts.peer.requestPermission(
      { sessionId: session.id, toolCall, options },
      { signal },
    ).then((response) => {
      const outcome = response.outcome;
      const id = outcome.outcome === "selected" ? outcome.optionId : "deny";
      answer(id === "once" || id === "session" ? id : "deny");
    }, (error) => {
      if (!signal.aborted) {
        this.#opts.log(`acp: the permission request failed: ${error}`);
        answer("deny");
      }
    });
  }
}
