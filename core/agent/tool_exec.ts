/**
 * The central tool pipeline: decode → validate → permission → execute with a timeout →
 * bound the output. Every tool, built-in or plugin, passes through here, so no tool has to
 * repeat these concerns, and no failure escapes as an exception.
 *
 * @module
 */
import { linkedSignal } from "../../providers/abort.ts";
import type { ToolCall } from "../../providers/types.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import { localWorkspace } from "../../tools/workspace/local.ts";
import {
  MAX_RAW_CONTENT_BYTES,
  type SharedToolContext,
  type Tool,
  type ToolAccess,
  type ToolContext,
  type ToolErrorCode,
  type ToolResult,
} from "../../tools/types.ts";
import { boundText, MAX_TOOL_CONTENT_BYTES } from "./bound.ts";
import type { AgentEvent } from "./events.ts";

/** Outcome of a permission check. */
export type GateDecision =
  | { allow: true }
  | { allow: false; reason: string };

/** One validated call, as the gate sees it. */
export interface GateRequest {
  tool: Tool;
  /** The parsed arguments. */
  args: unknown;
  /** What the call will touch, from `tool.access`. */
  access: ToolAccess;
  signal: AbortSignal;
  callId: string;
  /** Raises permission and approval events into the turn's stream. */
  emit(event: AgentEvent): void;
}

/** Decides whether a validated call may run. The permission layer implements this. */
export interface ToolGate {
  check(request: GateRequest): Promise<GateDecision>;
}

/** Options of one pipeline pass. */
export interface ExecuteOptions {
  registry: ToolRegistry;
  /** Context shared by the turn; `signal` and `progress` are set per call. */
  context: SharedToolContext;
  signal: AbortSignal;
  gate?: ToolGate;
  /** Bound on a single call whose tool names none of its own (`Tool.timeoutMs`). */
  timeoutMs: number;
  onProgress?(message: string, detail?: Readonly<Record<string, unknown>>): void;
  /** Receives permission and approval events raised while the call is checked. */
  onEvent?(event: AgentEvent): void;
}

function schemaHint(tool: Tool): string {
  return `Expected arguments matching this JSON Schema:\n${JSON.stringify(tool.schema)}`;
}

function errorResult(code: ToolErrorCode, content: string): ToolResult {
  return { content, isError: true, code };
}

/** Decodes the raw argument text. An empty string means no arguments. */
function decodeArguments(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Runs one tool call through the pipeline. Never throws except for abort of the turn. */
export async function executeToolCall(call: ToolCall, opts: ExecuteOptions): Promise<ToolResult> {
  const tool = opts.registry.get(call.name);
  if (!tool) {
    return errorResult(
      "unknown_tool",
      `Unknown tool "${call.name}". Available tools: ${opts.registry.names().join(", ")}.`,
    );
  }
  // The provider saw the arguments cut off at the output limit; running a guess is unsafe.
  if (call.argumentsError) {
    return errorResult("invalid_arguments", `${call.argumentsError} ${schemaHint(tool)}`);
  }
  const decoded = decodeArguments(call.arguments);
  if (!decoded.ok) {
    return errorResult(
      "invalid_arguments",
      `The arguments for ${tool.name} are not valid JSON (${decoded.error}). ${schemaHint(tool)}`,
    );
  }
  if (decoded.value === null || typeof decoded.value !== "object" || Array.isArray(decoded.value)) {
    return errorResult(
      "invalid_arguments",
      `The arguments for ${tool.name} must be a JSON object. ${schemaHint(tool)}`,
    );
  }
  let args: unknown = decoded.value;
  if (tool.parse) {
    const parsed = tool.parse(decoded.value);
    if (!parsed.ok) {
      return errorResult(
        "invalid_arguments",
        `Invalid arguments for ${tool.name}:\n${parsed.error}\n${schemaHint(tool)}`,
      );
    }
    args = parsed.value;
  }

  let access: ToolAccess = {};
  try {
    access = tool.access?.(args) ?? {};
  } catch (error) {
    return errorResult(
      "invalid_arguments",
      `Invalid arguments for ${tool.name}: ${(error as Error).message}`,
    );
  }
  if (opts.gate) {
    const decision = await opts.gate.check({
      tool,
      args,
      access,
      signal: opts.signal,
      callId: call.id,
      emit: (event) => opts.onEvent?.(event),
    });
    if (!decision.allow) return errorResult("permission_denied", decision.reason);
  }

  const timeoutMs = tool.timeoutMs?.(args) ?? opts.timeoutMs;
  using bounded = linkedSignal(opts.signal, { timeoutMs });
  const ctx: ToolContext = {
    ...opts.context,
    workspace: opts.context.workspace ?? localWorkspace(),
    signal: bounded.signal,
    progress: (message, detail) => opts.onProgress?.(message, detail),
  };
  let result: ToolResult;
  try {
    result = await tool.execute(args, ctx);
  } catch (error) {
    if (opts.signal.aborted) throw opts.signal.reason;
    if (bounded.timedOut) {
      return errorResult(
        "timeout",
        `${tool.name} timed out after ${Math.round(timeoutMs / 1000)}s.`,
      );
    }
    return errorResult(
      "internal",
      `${tool.name} failed: ${(error as Error)?.message ?? String(error)}`,
    );
  }
  if (bounded.timedOut && !opts.signal.aborted && !result.isError) {
    return errorResult(
      "timeout",
      `${tool.name} timed out after ${Math.round(timeoutMs / 1000)}s.`,
    );
  }
  // Every failure carries a code; a tool that named none reported a plain failure.
  if (result.isError && result.code === undefined) result = { ...result, code: "failed" };
  return boundResult(result);
}

const encoder = new TextEncoder();

/**
 * Bounds a result the one way every tool gets: `content` to the provider-visible 32 KB and
 * the raw text (the tool's own, or the unshortened content) to
 * {@linkcode MAX_RAW_CONTENT_BYTES}. Raw text over the cap keeps its start, and the content
 * says how much was kept, so the model knows paging will not reach the end.
 */
export function boundResult(
  result: ToolResult,
  opts: { rawMaxBytes?: number } = {},
): ToolResult {
  const content = boundText(result.content);
  const full = result.raw ?? (content === result.content ? undefined : result.content);
  if (full === undefined) return result;
  const rawMax = opts.rawMaxBytes ?? MAX_RAW_CONTENT_BYTES;
  // Fast path: a UTF-8 string is at most 3 bytes per UTF-16 unit.
  const fullBytes = full.length * 3 <= rawMax ? 0 : encoder.encode(full).length;
  if (fullBytes <= rawMax) return { ...result, content, raw: full };
  const kept = utf8Head(full, rawMax - encoder.encode(CUT_MARKER).length);
  const note = `[the first ${kept.bytes} bytes of the full result (${fullBytes} bytes) are kept ` +
    "for `session:tool_result`; the rest is not kept]";
  const room = MAX_TOOL_CONTENT_BYTES - encoder.encode(note).length - 1;
  return {
    ...result,
    content: `${boundText(result.content, room)}\n${note}`,
    raw: kept.text + CUT_MARKER,
  };
}

/** Ends raw text cut at the cap, so a page that reaches the end says the rest is missing. */
const CUT_MARKER = "\n[cut here: the remaining bytes were not kept]";

/** The longest start of `text` within `maxBytes` UTF-8 bytes, never splitting a character. */
function utf8Head(text: string, maxBytes: number): { text: string; bytes: number } {
  const bytes = encoder.encode(text);
  let end = Math.min(maxBytes, bytes.length);
  while (end > 0 && end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), bytes: end };
}
