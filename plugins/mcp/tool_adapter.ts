/**
 * MCP tools as Reasonix `Tool`s (`mcp__<server>__<tool>`) and as `use_capability`
 * capabilities (`mcp:<server>:<tool>`). Both run the same call: the supervisor's readiness
 * wait (bounded by the start-up timeout), then the call with its own timeout, progress
 * notifications as `ctx.progress`, and failures returned as results for the model.
 *
 * @module
 */
import type { Capability } from "../../tools/capability.ts";
import type { JsonSchema, Tool, ToolContext, ToolResult } from "../../tools/types.ts";
import { toolResultText } from "./content.ts";
import { McpUnavailableError } from "./failure.ts";
import { mcpCapabilityId, mcpToolName } from "./names.ts";
import { ErrorCode, McpError, type McpToolInfo } from "./sdk.ts";
import { notReadyMessage, type ServerSupervisor } from "./supervisor.ts";
import type { RecordedMcpTool } from "./types.ts";
import { stripControl } from "./text.ts";

/** Settings every adapted tool shares. */
export interface AdapterOptions {
  /** Bound on one call once the server is ready. */
  callTimeoutMs: number;
}

/** `3/5 message`, or whatever part of it the server sent. */
export function formatProgress(p: { progress: number; total?: number; message?: string }): string {
  const count = p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`;
  return p.message ? `${count} ${p.message}` : count;
}

function schemaOf(info: McpToolInfo): JsonSchema {
  const schema = info.inputSchema as JsonSchema | undefined;
  if (!schema || typeof schema !== "object") return { type: "object", properties: {} };
  return schema.type === "object" ? schema : { ...schema, type: "object" };
}

function describe(server: string, info: McpToolInfo): string {
  return stripControl(
    info.description ?? info.title ?? `Tool "${info.name}" of MCP server "${server}".`,
  );
}

/** Whether the server marked the tool read-only. Unannotated tools are writers. */
export function isReadOnly(info: McpToolInfo): boolean {
  return info.annotations?.readOnlyHint === true;
}

/** One call {@linkcode runMcpTool} makes. */
export interface McpToolCall extends AdapterOptions {
  supervisor: ServerSupervisor;
  /** The tool's name on the server. */
  tool: string;
  args: Record<string, unknown>;
  /**
   * The tool was not taken from the server's live list: `recorded`, from a session record;
   * `unlisted`, by a capability id of a server that is not ready (it may have failed to start,
   * and the call gives it a fresh attempt). Wait for the server, then check that it lists the
   * tool before calling it.
   */
  recorded?: boolean | "unlisted";
}

/** Slack over the MCP layer's own bounds, so its clearer timeout message comes first. */
const TIMEOUT_SLACK_MS = 5_000;

/**
 * The bound the agent puts on one call: the readiness wait (the server's start-up timeout),
 * then `mcp_call_timeout_seconds`, whatever the agent's default tool timeout is.
 */
export function mcpToolTimeoutMs(supervisor: ServerSupervisor, opts: AdapterOptions): number {
  return (supervisor.spec?.startupTimeoutMs ?? 0) + opts.callTimeoutMs + TIMEOUT_SLACK_MS;
}

function failure(error: unknown, { supervisor, tool, callTimeoutMs }: McpToolCall): ToolResult {
  const server = supervisor.name;
  if (error instanceof McpUnavailableError) {
    // The call's own wait and the start it waited for end at the same bound; either way the
    // result names the fix.
    const timeoutMs = supervisor.spec?.startupTimeoutMs;
    const content = error.errorClass === "startup_timeout" && timeoutMs !== undefined
      ? notReadyMessage(server, timeoutMs)
      : error.message;
    return { content, isError: true, code: "unavailable" };
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return {
      content: `MCP tool ${tool} of server "${server}" timed out after ${
        Math.round(callTimeoutMs / 1000)
      }s.`,
      isError: true,
      code: "timeout",
    };
  }
  const message = stripControl((error as Error)?.message ?? String(error));
  return {
    content: `MCP tool ${stripControl(tool)} of server "${server}" failed: ${message}`,
    isError: true,
    code: "failed",
  };
}

/** Runs one call of a tool on the supervised server. Throws only when the turn was aborted. */
export async function runMcpTool(
  call: McpToolCall,
  ctx: Pick<ToolContext, "signal" | "progress">,
): Promise<ToolResult> {
  const { supervisor, tool, args } = call;
  try {
    if (call.recorded) {
      const session = await supervisor.ready({ signal: ctx.signal });
      if (!session.tools.some((t) => t.name === tool)) {
        const why = call.recorded === "unlisted"
          ? `does not offer a tool "${stripControl(tool)}"`
          : `no longer offers the tool "${stripControl(tool)}" (it did when this session started)`;
        return {
          content: `MCP server "${supervisor.name}" ${why}, so the call did not run. Use ` +
            "another tool, or `use_capability` to see what the server offers now.",
          isError: true,
          code: "unavailable",
        };
      }
    }
    const result = await supervisor.callTool(tool, args, {
      signal: ctx.signal,
      timeoutMs: call.callTimeoutMs,
      onProgress: (p) => ctx.progress(formatProgress(p)),
    });
    const out: ToolResult = { content: toolResultText(result) };
    if (result.isError) {
      out.isError = true;
      out.code = "failed";
    }
    out.meta = { mcp: { server: supervisor.name, tool } };
    if (result.structuredContent !== undefined) {
      out.meta.structuredContent = result.structuredContent;
    }
    return out;
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? error;
    return failure(error, call);
  }
}

/** The direct tool `mcp__<server>__<tool>`. */
export function mcpTool(
  supervisor: ServerSupervisor,
  info: McpToolInfo,
  opts: AdapterOptions,
): Tool<Record<string, unknown>> {
  const name = mcpToolName(supervisor.name, info.name);
  const readOnly = isReadOnly(info);
  return {
    name,
    description: describe(supervisor.name, info),
    schema: schemaOf(info),
    readOnly,
    access: () => ({ rule: name, readOnly }),
    timeoutMs: () => mcpToolTimeoutMs(supervisor, opts),
    execute: (args, ctx) => runMcpTool({ ...opts, supervisor, tool: info.name, args }, ctx),
  };
}

/** The capability `mcp:<server>:<tool>`. */
export function mcpCapability(
  supervisor: ServerSupervisor,
  info: McpToolInfo,
  opts: AdapterOptions,
): Capability {
  const readOnly = isReadOnly(info);
  return {
    id: mcpCapabilityId(supervisor.name, info.name),
    description: describe(supervisor.name, info),
    schema: schemaOf(info),
    readOnly,
    destructive: !readOnly && info.annotations?.destructiveHint === true,
    rule: mcpToolName(supervisor.name, info.name),
    timeoutMs: mcpToolTimeoutMs(supervisor, opts),
    invoke: (args, ctx) => runMcpTool({ ...opts, supervisor, tool: info.name, args }, ctx),
  };
}

/**
 * The capability `mcp:<server>:<tool>` of a server that is not ready, so its tools are not
 * known: calling it waits for the server (a server that failed gets a fresh attempt), then
 * calls the tool if the server lists it. Its permission rule is the tool's name; as nothing
 * says it only reads, it counts as a writer.
 */
export function unlistedMcpCapability(
  supervisor: ServerSupervisor,
  tool: string,
  opts: AdapterOptions,
): Capability {
  return {
    id: mcpCapabilityId(supervisor.name, tool),
    description: `Tool "${stripControl(tool)}" of MCP server "${supervisor.name}" (not ready).`,
    schema: { type: "object", properties: {} },
    readOnly: false,
    rule: mcpToolName(supervisor.name, tool),
    timeoutMs: mcpToolTimeoutMs(supervisor, opts),
    invoke: (args, ctx) =>
      runMcpTool({ ...opts, supervisor, tool, args, recorded: "unlisted" }, ctx),
  };
}

/**
 * A direct tool with exactly the definition a session recorded, calling the tool of that name
 * on the supervised server once it is ready (spec: the tool list of a session is stable).
 */
export function recordedMcpTool(
  supervisor: ServerSupervisor,
  record: RecordedMcpTool,
  opts: AdapterOptions,
): Tool<Record<string, unknown>> {
  const { name, readOnly } = record;
  return {
    name,
    description: record.description,
    schema: record.parameters as JsonSchema,
    readOnly,
    access: () => ({ rule: name, readOnly }),
    timeoutMs: () => mcpToolTimeoutMs(supervisor, opts),
    execute: (args, ctx) =>
      runMcpTool({ ...opts, supervisor, tool: record.tool, args, recorded: true }, ctx),
  };
}
