/**
 * What a headless run could not do: tool calls refused for want of an approver, and calls that
 * could not start (no OS sandbox, an MCP server that is not trusted or not available). Every
 * output format reports them, the text formats end with a block on stderr that names the
 * complete flag or rule that would allow each, and `reasonix run` exits 3 when there are any,
 * so a script that checks the exit code never mistakes "finished, but did nothing" for done.
 *
 * @module
 */
import type { AgentEvent } from "../../core/agent/events.ts";
import type { ToolCall } from "../../providers/types.ts";
import { describeCall } from "../render_plain.ts";

/** One refused call, as `--json` and `stream-json` list it. */
export interface RefusedEntry {
  tool: string;
  /** The call in a few words, e.g. `bash npm test`. */
  summary: string;
  /** Why it did not run. */
  reason: string;
  /** The flag, rule or install that would let it run, when the reason names one. */
  fix: string | null;
}

/** Splits a refusal message into its reason and the part that says how to allow it. */
export function splitFix(message: string): { reason: string; fix: string | null } {
  const text = message.trim();
  const at = text.search(
    /\s(?:To allow it|To allow|Leave the file alone|install the|install it|Install )/,
  );
  if (at < 0) return { reason: text, fix: null };
  return { reason: text.slice(0, at).trim(), fix: text.slice(at).trim() };
}

/** Collects the refused calls of a run from its event stream. */
export class RefusalLedger {
  readonly #calls = new Map<string, ToolCall>();
  readonly #refused = new Set<string>();
  readonly #entries: RefusedEntry[] = [];
  #turnStart = 0;

  /** Every refused call of the run, in order. */
  get entries(): readonly RefusedEntry[] {
    return this.#entries;
  }

  /** The refused calls since the current user turn began. */
  get turn(): RefusedEntry[] {
    return this.#entries.slice(this.#turnStart);
  }

  /** A user turn begins. */
  beginTurn(): void {
    this.#turnStart = this.#entries.length;
  }

  /** Looks at one event. */
  event(event: AgentEvent): void {
    if (event.type === "tool_start") {
      this.#calls.set(event.call.id, event.call);
    } else if (event.type === "permission") {
      // `ask` that did not go ahead: the policy wanted a person and this run has none.
      if (event.allowed || event.decision !== "ask") return;
      this.#add(event.callId, event.tool, event.reason ?? "needs approval");
    } else if (event.type === "tool_end") {
      if (event.result.code !== "unavailable") return;
      this.#add(event.call.id, event.call.name, event.result.content);
    }
  }

  #add(callId: string, tool: string, message: string): void {
    if (this.#refused.has(callId)) return;
    this.#refused.add(callId);
    const call = this.#calls.get(callId);
    this.#entries.push({
      tool,
      summary: call ? describeCall(call.name, call.arguments) : tool,
      ...splitFix(message),
    });
  }
}

/** The stderr block that ends a run with refused calls: every fix in full, never cut. */
export function refusalBlock(entries: readonly RefusedEntry[]): string {
  if (!entries.length) return "";
  const lines = [
    `${entries.length} action${entries.length === 1 ? " was" : "s were"} refused ` +
    "(exit code 3):",
  ];
  for (const e of entries) {
    lines.push(`  ✗ ${e.summary}`, `    ${e.reason}`);
    if (e.fix) lines.push(`    ${e.fix}`);
  }
  return `${lines.join("\n")}\n`;
}
