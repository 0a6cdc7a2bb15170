/**
 * The MCP tools of a session stay what the session offered (issue 13, point 4; cache-first
 * invariant 1). A session records the MCP tool definitions it offers (`tools` transcript
 * record); a resumed session, and every new agent on it (`/model`), offers those bytes again:
 * tools of servers that are not ready yet stay listed and their calls wait for the server,
 * tools of servers that are gone stay listed and their calls fail with a result that names the
 * server and the fix. What differs from the live lists is reported, never dropped from the
 * middle of the prompt prefix.
 *
 * @module
 */
import type { BuiltTurn, TurnSource } from "../agent/agent.ts";
import type { AgentEvent, UserInput } from "../agent/events.ts";
import type { Session } from "../agent/session.ts";
import type { OfferedTool } from "../store/records.ts";
import { canonicalize } from "../../tools/canonical.ts";
import type { Tool, ToolResult } from "../../tools/types.ts";

/** Where an MCP tool comes from. */
export interface McpToolOrigin {
  server: string;
  /** The tool's own name on the server. */
  tool: string;
}

/**
 * What a host's MCP side offers to keep tool lists stable; every method is optional, and a
 * host without them (no MCP server declared) gets placeholders for recorded tools.
 */
export interface HostMcpTools {
  /** The server and tool behind a catalogue tool, when it is one of this host's MCP tools. */
  toolOrigin?(tool: Tool): McpToolOrigin | undefined;
  /**
   * A tool with exactly each recorded definition whose server is declared, calling that
   * server's tool (waiting for the server to be ready). Records of undeclared servers get none.
   */
  restoreTools?(recorded: readonly OfferedTool[]): Tool[];
  /**
   * Compares what the servers list with `offered` now and whenever a list changes, and
   * reports each difference once per server. Returns a function that stops watching.
   */
  watchTools?(offered: readonly OfferedTool[], report: (message: string) => void): () => void;
}

/** The tools an agent offers before scoping, and what is known about their MCP side. */
export interface PlannedTools {
  /** Built-ins and plugin tools of the catalogue, then the session's MCP tools. */
  tools: Tool[];
  /** Warnings to show when the agent starts. */
  warnings: string[];
  /** The MCP tools among `tools` as a session records them. */
  records: Map<Tool, OfferedTool>;
}

function nameOrder(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function list(names: string[]): string {
  const shown = names.slice(0, 5).join(", ");
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/** What a call of a recorded tool of an undeclared server returns. */
export function goneServerResult(record: OfferedTool): ToolResult {
  return {
    content: `MCP server "${record.server}" is not declared any more, so its tool ` +
      `"${record.tool}" (offered when this session started) cannot run; the call did not run. ` +
      `Declare the server again (\`reasonix mcp add ${record.server} …\`) and continue the ` +
      "session, or start a new session.",
    isError: true,
    code: "unavailable",
  };
}

function placeholder(record: OfferedTool): Tool {
  return {
    name: record.name,
    description: record.description,
    schema: record.parameters,
    readOnly: record.readOnly,
    access: () => ({ rule: record.name, readOnly: record.readOnly }),
    execute: () => Promise.resolve(goneServerResult(record)),
  };
}

/**
 * Picks the tools of an agent from the host catalogue and, for a resumed session, the MCP
 * tools it recorded. Without a record (a new session, an ephemeral agent, a transcript older
 * than the record) the catalogue is used as it is.
 */
export function planTools(opts: {
  catalogue: readonly Tool[];
  mcp?: HostMcpTools;
  recorded?: readonly OfferedTool[];
}): PlannedTools {
  const { catalogue, mcp, recorded } = opts;
  const records = new Map<Tool, OfferedTool>();
  const warnings: string[] = [];
  const origins = new Map<Tool, McpToolOrigin>();
  for (const tool of catalogue) {
    const origin = mcp?.toolOrigin?.(tool);
    if (origin) origins.set(tool, origin);
  }
  const record = (tool: Tool, origin: McpToolOrigin): OfferedTool => ({
    name: tool.name,
    description: tool.description,
    parameters: canonicalize(tool.schema),
    readOnly: tool.readOnly,
    server: origin.server,
    tool: origin.tool,
  });
  if (!recorded) {
    for (const [tool, origin] of origins) records.set(tool, record(tool, origin));
    return { tools: [...catalogue], warnings, records };
  }
  const tools = catalogue.filter((t) => !origins.has(t));
  const taken = new Set(tools.map((t) => t.name));
  const restored = new Map((mcp?.restoreTools?.(recorded) ?? []).map((t) => [t.name, t]));
  const gone = new Map<string, string[]>();
  for (const r of recorded) {
    if (taken.has(r.name)) continue;
    taken.add(r.name);
    const tool = restored.get(r.name) ?? placeholder(r);
    if (!restored.has(r.name)) gone.set(r.server, [...gone.get(r.server) ?? [], r.name]);
    tools.push(tool);
    records.set(tool, r);
  }
  for (const [server, names] of [...gone].sort(([a], [b]) => a < b ? -1 : 1)) {
    warnings.push(
      `MCP server "${server}" is not declared any more; this session keeps its ` +
        `${names.length} tool(s) (${list(names)}) so the conversation and the cached prompt ` +
        `stay valid, and calls to them fail. Declare the server again (\`reasonix mcp add ` +
        `${server} …\`), or start a new session to drop them.`,
    );
  }
  // Direct tools of servers the session did not offer: adding them would break the prefix.
  const recordedServers = new Set(recorded.map((r) => r.server));
  const unrecorded = new Map<string, string[]>();
  for (const [tool, origin] of [...origins].sort(([a], [b]) => nameOrder(a, b))) {
    if (recordedServers.has(origin.server)) continue;
    unrecorded.set(origin.server, [...unrecorded.get(origin.server) ?? [], tool.name]);
  }
  for (const [server, names] of [...unrecorded].sort(([a], [b]) => a < b ? -1 : 1)) {
    warnings.push(
      `MCP server "${server}" was not ready (or not declared) when this session fixed its ` +
        `tool list; its ${names.length} tool(s) stay reachable through use_capability ` +
        `(capabilities "mcp:${server}:<tool>"). Start a new session to offer them directly.`,
    );
  }
  return { tools, warnings, records };
}

/** Whether two recorded tool lists are the same bytes. */
export function sameOffered(a: readonly OfferedTool[], b: readonly OfferedTool[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Reports that arrive while an agent lives; each is shown once, at the next user turn. */
export class ToolNotices {
  readonly #pending: string[] = [];

  /** Queues a report. */
  push(message: string): void {
    this.#pending.push(message);
  }

  /** Takes every queued report. */
  drain(): string[] {
    return this.#pending.splice(0);
  }

  /** `source` with the queued reports as notice events in front of each turn's own. */
  around(source: TurnSource | undefined): TurnSource | undefined {
    if (!source) return undefined;
    return {
      build: async (input: UserInput, session: Session, opts: { signal: AbortSignal }) => {
        const turn: BuiltTurn = await source.build(input, session, opts);
        const pending = this.drain();
        if (pending.length === 0) return turn;
        const notices: AgentEvent[] = pending.map((message) => ({
          type: "notice",
          level: "warning",
          message,
        }));
        return { ...turn, events: [...notices, ...turn.events ?? []] };
      },
    };
  }
}
