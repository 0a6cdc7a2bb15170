/**
 * Built-in tools register into a process-level set on import; each run builds its own
 * `ToolRegistry` from the enabled built-ins plus plugin tools.
 *
 * @module
 */
import type { ToolSchema } from "../providers/types.ts";
import { canonicalize } from "./canonical.ts";
import type { Tool } from "./types.ts";

const builtins = new Map<string, Tool>();

/**
 * Adds a built-in tool. Throws when the name is taken.
 *
 * @example Add a tool every host offers
 * ```ts
 * import { defineTool, registerBuiltinTool } from "@reasonix/reasonix";
 * import { z } from "zod";
 *
 * registerBuiltinTool(defineTool({
 *   name: "utc_now_example",
 *   description: "The current time in UTC, ISO 8601.",
 *   input: z.object({}),
 *   readOnly: true,
 *   run: () => Promise.resolve({ content: new Date().toISOString() }),
 * }));
 * ```
 */
export function registerBuiltinTool(tool: Tool): void {
  if (builtins.has(tool.name)) {
    throw new Error(`built-in tool "${tool.name}" is already registered`);
  }
  builtins.set(tool.name, tool);
}

/** Every registered built-in tool, sorted by name. */
export function builtinTools(): Tool[] {
  return [...builtins.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * The tools one run offers the model: canonical schemas, sorted by name, fixed at creation.
 *
 * @example The schemas a run offers, sorted by name
 * ```ts
 * import { defineTool, ToolRegistry } from "@reasonix/reasonix";
 * import { z } from "zod";
 *
 * const echo = defineTool({
 *   name: "echo",
 *   description: "Returns its input.",
 *   input: z.object({ text: z.string() }),
 *   readOnly: true,
 *   run: (args) => Promise.resolve({ content: args.text }),
 * });
 * const registry = new ToolRegistry([echo]);
 * console.log(registry.names()); // ["echo"]
 * ```
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  readonly #schemas: readonly ToolSchema[];

  /** Canonicalizes and sorts `tools`; throws on a duplicate name. */
  constructor(tools: Iterable<Tool>) {
    const sorted: Tool[] = [];
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) throw new Error(`duplicate tool name "${tool.name}"`);
      // A plain copy with bound methods, so class-based tools keep their `this`.
      const canonical: Tool = {
        name: tool.name,
        description: tool.description,
        schema: canonicalize(tool.schema),
        readOnly: tool.readOnly,
        parse: tool.parse?.bind(tool),
        access: tool.access?.bind(tool),
        timeoutMs: tool.timeoutMs?.bind(tool),
        execute: tool.execute.bind(tool),
      };
      this.#tools.set(tool.name, canonical);
      sorted.push(canonical);
    }
    sorted.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    this.#schemas = Object.freeze(
      sorted.map((t) => ({ name: t.name, description: t.description, parameters: t.schema })),
    );
  }

  /** The tool with this name, if offered. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** Tool names, sorted. */
  names(): string[] {
    return this.#schemas.map((s) => s.name);
  }

  /** The schemas sent to the model, sorted by name. Identical on every call. */
  schemas(): readonly ToolSchema[] {
    return this.#schemas;
  }
}
