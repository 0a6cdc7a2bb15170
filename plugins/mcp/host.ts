/**
 * The MCP host of a run: one supervisor per effective server, started in the background.
 * Front ends read status, prompts and resources from here; the composition root takes the
 * tools of servers that are ready early as direct tools and registers the capability source
 * for everything (so servers that connect late never change the tool list). A resumed session
 * offers the tools it recorded instead ({@linkcode McpHost.restoreTools}), and
 * {@linkcode McpHost.watchTools} reports where the live lists differ from them.
 *
 * @module
 */
import type { Capability, CapabilitySource } from "../../tools/capability.ts";
import type { Tool } from "../../tools/types.ts";
import { promptMessages, resourceParts, resourceText } from "./content.ts";
import { McpUnavailableError } from "./failure.ts";
import { ProxyClients } from "./http_fetch.ts";
import { mcpToolName, parseResourceReference, resourceReference } from "./names.ts";
import type { AuthorizationOpener } from "./oauth_provider.ts";
import type { CallToolResult } from "./sdk.ts";
import { type McpClientCustomization, openSession } from "./session.ts";
import { type CallOptions, ServerSupervisor, type SupervisorContext } from "./supervisor.ts";
import { stripControl } from "./text.ts";
import {
  isReadOnly,
  mcpCapability,
  mcpTool,
  recordedMcpTool,
  unlistedMcpCapability,
} from "./tool_adapter.ts";
import { canonicalize } from "../../tools/canonical.ts";
import type {
  McpPromptCommand,
  McpPromptResult,
  McpResourceContent,
  McpResourceEntry,
  McpServerEntry,
  McpServerStatus,
  McpToolEntry,
  RecordedMcpTool,
  StdioLauncher,
} from "./types.ts";

/** Options of {@link McpHost}. */
export interface McpHostOptions {
  entries: McpServerEntry[];
  /** `clientInfo` sent in `initialize`. */
  clientInfo: { name: string; version: string };
  /** Declared as the client's root when set. */
  workspaceRoot?: string;
  /** Bound on a tool call (and list/read requests) once the server is ready. */
  callTimeoutMs: number;
  /** Reasonix-private state directory for MCP (`<home>/mcp`). */
  stateDir: string;
  /** Environment for proxy settings. */
  env?: Record<string, string | undefined>;
  /**
   * Runs the OAuth user-agent step whenever a server needs authorization. Without it,
   * servers only use stored tokens and otherwise report `needs_auth`.
   */
  authorizer?: { open: AuthorizationOpener; timeoutMs?: number };
  customize?: McpClientCustomization;
  /** Wraps every stdio server before it is spawned (the OS sandbox of the composition root). */
  launch?: StdioLauncher;
}

const DEFAULT_AUTH_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * How many MCP tools, and how many characters of their names, descriptions and schemas, go
 * into every request as direct tools. The rest are reachable through `use_capability`.
 */
export const DIRECT_TOOL_BUDGET: { tools: number; bytes: number } = {
  tools: 128,
  bytes: 64 * 1024,
};

/** One tool call through {@linkcode McpHost.callTool}. */
export interface McpToolRequest extends Omit<CallOptions, "timeoutMs"> {
  server: string;
  /** The tool's name on the server. */
  tool: string;
  args: Record<string, unknown>;
  /** Default: the host's call timeout. */
  timeoutMs?: number;
}

/** One prompt rendering through {@linkcode McpHost.getPrompt}. */
export interface McpPromptRequest {
  server: string;
  /** The prompt's name on the server. */
  prompt: string;
  args: Record<string, string>;
  signal?: AbortSignal;
}

/** The host. */
export class McpHost {
  readonly #supervisors = new Map<string, ServerSupervisor>();
  readonly #listeners = new Set<() => void>();
  readonly #proxies = new ProxyClients();
  readonly #opts: McpHostOptions;
  readonly #ctx: SupervisorContext;
  /** The server and tool behind every direct tool this host made. */
  readonly #origins = new WeakMap<Tool, { server: string; tool: string }>();
  #started = false;
  #closed = false;

  constructor(opts: McpHostOptions) {
    this.#opts = opts;
    this.#ctx = {
      clientInfo: opts.clientInfo,
      workspaceRoot: opts.workspaceRoot,
      env: opts.env ?? {},
      proxies: this.#proxies,
      stateDir: opts.stateDir,
      requestTimeoutMs: opts.callTimeoutMs,
      authorizer: opts.authorizer
        ? {
          open: opts.authorizer.open,
          timeoutMs: opts.authorizer.timeoutMs ?? DEFAULT_AUTH_TIMEOUT_MS,
        }
        : undefined,
      customize: opts.customize,
      launch: opts.launch,
    };
    for (const entry of opts.entries) {
      const supervisor = new ServerSupervisor(entry, this.#ctx, () => this.#changed());
      this.#supervisors.set(supervisor.name, supervisor);
    }
  }

  /** Server names, sorted. */
  names(): string[] {
    return [...this.#supervisors.keys()].sort();
  }

  /** The effective declarations with their problems, for `reasonix mcp get`. */
  entries(): McpServerEntry[] {
    return this.names().map((n) => this.#supervisors.get(n)!.entry);
  }

  /** Starts every server in the background. Idempotent. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    for (const s of this.#supervisors.values()) s.start();
  }

  /**
   * Waits until every server has finished its first start (ready or not), or `timeoutMs`
   * passed. Never throws.
   */
  async waitForStartup(opts: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    const settled = () => [...this.#supervisors.values()].every((s) => s.settled);
    if (settled()) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        opts.signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, opts.timeoutMs);
      const unsubscribe = this.onChange(() => {
        if (settled()) done();
      });
      opts.signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** Calls `listener` whenever a server's status or lists change. Returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // A front end's listener must not break the host.
      }
    }
  }

  /** A redacted snapshot per server, sorted by name. */
  status(): McpServerStatus[] {
    return this.names().map((n) => this.#supervisors.get(n)!.status());
  }

  /**
   * Direct tools of the servers ready now. The composition root calls this once, before the
   * first request; the tool list is never changed afterwards.
   *
   * Every request carries the direct tools, so they share a budget ({@link DIRECT_TOOL_BUDGET}).
   * Servers are admitted whole, by name: one whose tools do not fit what is left has none of
   * them direct, and all of them stay reachable through `use_capability`; `warnings` gets a
   * line saying so.
   */
  directTools(opts: { warnings?: string[] } = {}): Tool[] {
    const tools: Tool[] = [];
    const taken = new Set<string>();
    let count = 0;
    let bytes = 0;
    for (const name of this.names()) {
      const supervisor = this.#supervisors.get(name)!;
      const offered: Tool[] = [];
      let size = 0;
      for (const info of supervisor.session?.tools ?? []) {
        const tool = mcpTool(supervisor, info, { callTimeoutMs: this.#opts.callTimeoutMs });
        // Two tools that clean up to the same name: the first keeps it, the other stays
        // reachable through use_capability.
        if (taken.has(tool.name) || offered.some((t) => t.name === tool.name)) continue;
        offered.push(tool as Tool);
        size += tool.name.length + tool.description.length + JSON.stringify(tool.schema).length;
        if (
          count + offered.length > DIRECT_TOOL_BUDGET.tools ||
          bytes + size > DIRECT_TOOL_BUDGET.bytes
        ) break;
      }
      const all = supervisor.session?.tools.length ?? 0;
      if (
        count + offered.length > DIRECT_TOOL_BUDGET.tools || bytes + size > DIRECT_TOOL_BUDGET.bytes
      ) {
        opts.warnings?.push(
          `MCP server "${name}" offers ${all} tools, more than fit the ${DIRECT_TOOL_BUDGET.tools} ` +
            `tools / ${DIRECT_TOOL_BUDGET.bytes / 1024} KiB of tool definitions sent with every ` +
            `request; its tools are reachable through use_capability (capabilities ` +
            `"mcp:${name}:<tool>")`,
        );
        continue;
      }
      for (const tool of offered) taken.add(tool.name);
      tools.push(...offered);
      for (const tool of offered) {
        const info = supervisor.session!.tools.find((t) => mcpToolName(name, t.name) === tool.name);
        if (info) this.#origins.set(tool, { server: name, tool: info.name });
      }
      count += offered.length;
      bytes += size;
    }
    return tools;
  }

  /** The server and tool behind a direct tool this host made, for the session's record. */
  toolOrigin(tool: Tool): { server: string; tool: string } | undefined {
    return this.#origins.get(tool);
  }

  /**
   * Direct tools with exactly the definitions a session recorded, for the servers declared
   * now. Their calls wait for the server (bounded by its start-up timeout) and check that it
   * still lists the tool; the schema bytes never depend on whether the server is ready, so a
   * resumed session offers the tool block it had. Records of undeclared servers get no tool.
   */
  restoreTools(recorded: readonly RecordedMcpTool[]): Tool[] {
    const out: Tool[] = [];
    for (const record of recorded) {
      const supervisor = this.#supervisors.get(record.server);
      if (!supervisor) continue;
      const tool = recordedMcpTool(supervisor, record, { callTimeoutMs: this.#opts.callTimeoutMs });
      this.#origins.set(tool as Tool, { server: record.server, tool: record.tool });
      out.push(tool as Tool);
    }
    return out;
  }

  /**
   * Compares the live tool lists of the servers in `offered` with what a session offers, now
   * and on every change, and reports each new difference once (a server that is not ready is
   * compared when it becomes ready). The session keeps its tools; this only says what differs
   * and what to do. Returns a function that stops watching.
   */
  watchTools(offered: readonly RecordedMcpTool[], report: (message: string) => void): () => void {
    const byServer = new Map<string, RecordedMcpTool[]>();
    for (const r of offered) {
      if (this.#supervisors.has(r.server)) {
        byServer.set(r.server, [...byServer.get(r.server) ?? [], r]);
      }
    }
    if (byServer.size === 0) return () => {};
    const last = new Map<string, string>();
    const check = () => {
      for (const [server, records] of byServer) {
        const message = this.#toolListDifference(server, records);
        if (message === undefined) continue;
        if (last.get(server) === message) continue;
        last.set(server, message);
        if (message) report(message);
      }
    };
    check();
    return this.onChange(check);
  }

  /**
   * How the live list of `server` differs from `records`: undefined while it is not ready, ""
   * when it matches.
   */
  #toolListDifference(server: string, records: RecordedMcpTool[]): string | undefined {
    const supervisor = this.#supervisors.get(server)!;
    const session = supervisor.session;
    if (!session) return undefined;
    const live = new Map<string, string>();
    for (const info of session.tools) {
      const tool = mcpTool(supervisor, info, { callTimeoutMs: this.#opts.callTimeoutMs });
      if (live.has(tool.name)) continue;
      live.set(tool.name, bytesOf(tool.description, canonicalize(tool.schema), tool.readOnly));
    }
    const recorded = new Set(records.map((r) => r.name));
    const changed: string[] = [];
    const gone: string[] = [];
    for (const r of records) {
      const now = live.get(r.name);
      if (now === undefined) gone.push(r.name);
      else if (now !== bytesOf(r.description, r.parameters, r.readOnly)) changed.push(r.name);
    }
    const added = [...live.keys()].filter((n) => !recorded.has(n)).sort();
    if (!changed.length && !gone.length && !added.length) return "";
    const parts = [
      changed.length ? `changed ${names(changed)}` : "",
      gone.length ? `no longer listed ${names(gone)}` : "",
      added.length ? `new ${names(added)}` : "",
    ].filter(Boolean);
    return stripControl(
      `MCP server "${server}" now lists other tools than this session offers (${
        parts.join("; ")
      }). The session keeps the definitions it started with, so the cached prompt stays ` +
        "valid: calls to tools it no longer lists fail with a message, and its new tools are " +
        `reachable through use_capability ("mcp:${server}:<tool>"). Start a new session to ` +
        "offer its current tools directly.",
    );
  }

  /**
   * Every live MCP tool as a `use_capability` capability. An id `mcp:<server>:<tool>` of a
   * declared server that is not ready resolves too: its call waits for the server, and one that
   * failed to start gets a fresh attempt.
   */
  capabilitySource(): CapabilitySource {
    return {
      resolve: (id) => {
        if (!id.startsWith("mcp:")) return undefined;
        const colon = id.indexOf(":", 4);
        if (colon < 0 || colon === id.length - 1) return undefined;
        const supervisor = this.#supervisors.get(id.slice(4, colon));
        // A ready server lists its tools: an id it does not list names no tool.
        if (!supervisor || supervisor.session || !supervisor.spec) return undefined;
        return unlistedMcpCapability(supervisor, id.slice(colon + 1), {
          callTimeoutMs: this.#opts.callTimeoutMs,
        });
      },
      list: (): Capability[] => {
        const out: Capability[] = [];
        for (const name of this.names()) {
          const supervisor = this.#supervisors.get(name)!;
          for (const info of supervisor.session?.tools ?? []) {
            out.push(mcpCapability(supervisor, info, { callTimeoutMs: this.#opts.callTimeoutMs }));
          }
        }
        return out;
      },
    };
  }

  #supervisor(server: string): ServerSupervisor {
    const supervisor = this.#supervisors.get(server);
    if (!supervisor) {
      throw new McpUnavailableError(`no MCP server is named "${server}"`, {
        server,
        errorClass: "config",
      });
    }
    return supervisor;
  }

  /** Calls a tool by its MCP name. Failures throw (the adapters turn them into results). */
  callTool(request: McpToolRequest): Promise<CallToolResult> {
    const { server, tool, args, ...opts } = request;
    return this.#supervisor(server).callTool(tool, args, {
      ...opts,
      timeoutMs: opts.timeoutMs ?? this.#opts.callTimeoutMs,
    });
  }

  /** Tools of the ready servers (all of them, or of one server), for listings. */
  tools(server?: string): McpToolEntry[] {
    const out: McpToolEntry[] = [];
    for (const name of server === undefined ? this.names() : [server]) {
      for (const t of this.#supervisors.get(name)?.session?.tools ?? []) {
        out.push({
          server: name,
          name: stripControl(t.name),
          tool: mcpToolName(name, t.name),
          ...(t.title ? { title: stripControl(t.title) } : {}),
          ...(t.description ? { description: stripControl(t.description) } : {}),
          readOnly: isReadOnly(t),
        });
      }
    }
    return out;
  }

  /** Prompts of the ready servers, as slash commands. */
  prompts(): McpPromptCommand[] {
    const out: McpPromptCommand[] = [];
    for (const name of this.names()) {
      for (const p of this.#supervisors.get(name)!.session?.prompts ?? []) {
        out.push({
          command: mcpToolName(name, p.name),
          server: name,
          prompt: p.name,
          ...(p.title ? { title: stripControl(p.title) } : {}),
          ...(p.description ? { description: stripControl(p.description) } : {}),
          arguments: (p.arguments ?? []).map((a) => ({
            name: a.name,
            ...(a.description ? { description: stripControl(a.description) } : {}),
            required: a.required === true,
          })),
        });
      }
    }
    return out;
  }

  /** The prompt behind `/mcp__<server>__<prompt>` (with or without the slash). */
  findPrompt(command: string): McpPromptCommand | undefined {
    const bare = command.startsWith("/") ? command.slice(1) : command;
    return this.prompts().find((p) => p.command === bare);
  }

  /** Renders a prompt with its arguments. */
  async getPrompt(request: McpPromptRequest): Promise<McpPromptResult> {
    const { server, prompt, args, ...opts } = request;
    const result = await this.#supervisor(server).request(
      (s) =>
        s.client.getPrompt({ name: prompt, arguments: args }, {
          signal: opts.signal,
          timeout: this.#opts.callTimeoutMs,
        }),
      opts,
    );
    return promptMessages(result);
  }

  /** Resources of the ready servers. */
  resources(): McpResourceEntry[] {
    const out: McpResourceEntry[] = [];
    for (const name of this.names()) {
      for (const r of this.#supervisors.get(name)!.session?.resources ?? []) {
        out.push({
          server: name,
          uri: r.uri,
          name: stripControl(r.name),
          ...(r.title ? { title: stripControl(r.title) } : {}),
          ...(r.description ? { description: stripControl(r.description) } : {}),
          ...(r.mimeType ? { mimeType: stripControl(r.mimeType) } : {}),
          reference: stripControl(resourceReference(name, r.uri)),
        });
      }
    }
    return out;
  }

  /** Reads a resource. */
  async readResource(
    server: string,
    uri: string,
    opts: { signal?: AbortSignal } = {},
  ): Promise<McpResourceContent> {
    const result = await this.#supervisor(server).request(
      (s) =>
        s.client.readResource({ uri }, { signal: opts.signal, timeout: this.#opts.callTimeoutMs }),
      opts,
    );
    const parts = resourceParts(result);
    return { server, uri, parts, text: resourceText(parts) };
  }

  /**
   * Reads `@<server>:<uri>`. Returns undefined when the text does not name a configured
   * server (so `@mention`s and e-mail addresses stay plain text).
   */
  async readReference(
    reference: string,
    opts: { signal?: AbortSignal } = {},
  ): Promise<McpResourceContent | undefined> {
    const parsed = parseResourceReference(reference);
    if (!parsed || !this.#supervisors.has(parsed.server)) return undefined;
    return await this.readResource(parsed.server, parsed.uri, opts);
  }

  /**
   * Runs the interactive OAuth flow for one HTTP server (loopback receiver + `open`), stores
   * the tokens, then restarts the server with them.
   */
  async authenticate(
    server: string,
    opts: { open: AuthorizationOpener; timeoutMs?: number; signal?: AbortSignal },
  ): Promise<void> {
    const supervisor = this.#supervisor(server);
    const spec = supervisor.spec;
    if (!spec) {
      throw new McpUnavailableError(supervisor.unavailableReason(), {
        server,
        errorClass: "config",
      });
    }
    if (spec.transport === "stdio") {
      throw new TypeError(`MCP server "${server}" runs over stdio; OAuth is for HTTP servers`);
    }
    const timeoutMs = opts.timeoutMs ?? DEFAULT_AUTH_TIMEOUT_MS;
    const bound = AbortSignal.timeout(timeoutMs + spec.startupTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, bound]) : bound;
    const session = await openSession(
      spec,
      {
        ...this.#ctx,
        authorizer: { open: opts.open, timeoutMs },
        generation: -1,
        onLoss: () => {},
        onExpired: () => {},
        onChange: () => {},
        onListChanged: () => {},
      },
      signal,
    );
    await session.close({ terminate: true });
    if (this.#started) await supervisor.restart().catch(() => {});
  }

  /** Closes every server (bounded DELETE for HTTP sessions) and the proxy clients. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#supervisors.values()].map((s) => s.close().catch(() => {})));
    this.#proxies.close();
    this.#listeners.clear();
  }
}

function bytesOf(description: string, schema: unknown, readOnly: boolean): string {
  return JSON.stringify([description, schema, readOnly]);
}

function names(list: string[]): string {
  const shown = list.slice(0, 5).join(", ");
  return list.length > 5 ? `${shown} and ${list.length - 5} more` : shown;
}
