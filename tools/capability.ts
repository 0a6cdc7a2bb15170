/**
 * The fixed `use_capability` proxy. Its schema never changes, so capabilities that appear
 * after a session's first request (an MCP server that connected late or reconnected, paging a
 * stored tool result) are reachable without changing the tool list and breaking the prompt
 * cache.
 *
 * @module
 */
import { z } from "zod";
import { canonicalJson } from "./canonical.ts";
import { defineTool } from "./define.ts";
import type { JsonSchema, Tool, ToolContext, ToolResult } from "./types.ts";

/** Something callable through `use_capability`. */
export interface Capability {
  /** Stable id, e.g. `session:tool_result` or `mcp:github:create_issue`. */
  id: string;
  /** What the capability does, for the model. */
  description: string;
  /** JSON Schema of `arguments`. */
  schema: JsonSchema;
  /** Whether it only reads (may run without asking under read-only rules). */
  readOnly: boolean;
  /** Whether it may destroy data; front ends warn before allowing it. */
  destructive?: boolean;
  /** Permission-rule name, e.g. `mcp__github__create_issue`. Defaults to the id. */
  rule?: string;
  /** Its own bound on a call (see `Tool.timeoutMs`); absent means the agent's tool timeout. */
  timeoutMs?: number;
  /** Runs the capability; failures come back as `{ isError: true }` results. */
  invoke(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** A live set of capabilities, e.g. one MCP server's current tools. */
export interface CapabilitySource {
  /** The capabilities available now. */
  list(): readonly Capability[];
  /**
   * A capability that is not listed now but can still be called by its id, e.g. a tool of an
   * MCP server that failed to start: the call gives the server a fresh attempt.
   */
  resolve?(id: string): Capability | undefined;
}

/** Every capability of a run, from fixed registrations and live sources. */
export class CapabilityHub {
  readonly #fixed = new Map<string, Capability>();
  readonly #sources = new Set<CapabilitySource>();

  /** Adds a capability. Throws when the id is taken. */
  register(capability: Capability): void {
    if (this.#fixed.has(capability.id)) {
      throw new Error(`capability "${capability.id}" is already registered`);
    }
    this.#fixed.set(capability.id, capability);
  }

  /** Adds a live source; returns a function that removes it. */
  addSource(source: CapabilitySource): () => void {
    this.#sources.add(source);
    return () => this.#sources.delete(source);
  }

  /** All capabilities now, sorted by id. */
  list(): Capability[] {
    const all = new Map(this.#fixed);
    for (const source of this.#sources) {
      for (const capability of source.list()) {
        if (!all.has(capability.id)) all.set(capability.id, capability);
      }
    }
    return [...all.values()].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  }

  /** The capability with this id, if any. */
  get(id: string): Capability | undefined {
    const found = this.#fixed.get(id) ?? this.list().find((c) => c.id === id);
    if (found) return found;
    for (const source of this.#sources) {
      const resolved = source.resolve?.(id);
      if (resolved) return resolved;
    }
    return undefined;
  }
}

const input = z.object({
  capability: z.string().optional().describe(
    "Capability id to call. Omit to list the available capabilities.",
  ),
  arguments: z.record(z.string(), z.unknown()).optional().describe(
    "Arguments for the capability, matching its schema from the list.",
  ),
  query: z.string().optional().describe("When listing: only ids or descriptions containing this."),
});

function listing(hub: CapabilityHub, query?: string): string {
  const q = query?.toLowerCase();
  const matches = hub.list().filter((c) =>
    !q || c.id.toLowerCase().includes(q) || c.description.toLowerCase().includes(q)
  );
  if (matches.length === 0) {
    return q ? `No capability matches "${query}".` : "No capabilities are available right now.";
  }
  return matches.map((c) =>
    `${c.id}${c.readOnly ? " (read-only)" : ""}: ${c.description}\n  arguments: ${
      canonicalJson(c.schema)
    }`
  ).join("\n");
}

/** Builds the `use_capability` tool over a hub. */
export function useCapabilityTool(hub: CapabilityHub): Tool {
  const tool = defineTool({
    name: "use_capability",
    description:
      "Call a capability that is not a direct tool: tools of MCP servers that connected after " +
      "this session started, and session services such as `session:tool_result` (page through " +
      "the full text of a tool result that was shortened). Call with no `capability` to list " +
      "what is available and each one's arguments.",
    input,
    readOnly: false,
    access(args) {
      if (!args.capability) return { rule: "use_capability", readOnly: true };
      const capability = hub.get(args.capability);
      return { rule: capability?.rule ?? args.capability, readOnly: capability?.readOnly ?? false };
    },
    run(args, ctx: ToolContext): Promise<ToolResult> {
      if (!args.capability) return Promise.resolve({ content: listing(hub, args.query) });
      const capability = hub.get(args.capability);
      if (!capability) {
        return Promise.resolve({
          content: `Unknown capability "${args.capability}". Available:\n${listing(hub)}`,
          isError: true,
          code: "unknown_tool",
        });
      }
      return capability.invoke(args.arguments ?? {}, ctx);
    },
  });
  return {
    ...tool,
    timeoutMs: (args: { capability?: string }) =>
      args.capability ? hub.get(args.capability)?.timeoutMs : undefined,
  } as Tool;
}
