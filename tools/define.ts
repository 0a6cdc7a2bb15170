/**
 * Defines a built-in tool from one zod schema: the JSON Schema the model sees and the
 * validator the central pipeline runs come from the same source.
 *
 * @module
 */
import { z } from "zod";
import type {
  JsonSchema,
  ParseResult,
  Tool,
  ToolAccess,
  ToolContext,
  ToolResult,
} from "./types.ts";

/**
 * A tool's arguments schema: a zod 4 schema such as `z.object({...})`. Typed by the one method
 * the pipeline calls so the public API names no zod type; `defineTool` also derives the JSON
 * Schema from it, which only a zod schema supports.
 */
export interface ToolInput<Args> {
  /** Validates decoded arguments (zod's `safeParse`). */
  safeParse(args: unknown): { success: true; data: Args } | { success: false; error: unknown };
}

/** A tool description for {@linkcode defineTool}. */
export interface ToolSpec<Args> {
  /** Unique name the model calls the tool by, e.g. `read_file`. */
  name: string;
  /** What the tool does and when to use it, for the model. */
  description: string;
  /** The arguments schema; the model sees it as JSON Schema, calls are validated by it. */
  input: ToolInput<Args>;
  /** Read-only tools may run in parallel and fall back to `allow` in the permission policy. */
  readOnly: boolean;
  /** What a call will touch (paths, writes), for the permission layer. */
  access?(args: Args): ToolAccess;
  /** Runs a validated call. Return `{ isError: true }` for expected failures; do not throw. */
  run(args: Args, ctx: ToolContext): Promise<ToolResult>;
}

const SAFE_INT_BOUNDS = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

/** Strips what zod adds that the model does not need (dialect URI, safe-integer bounds). */
function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema") continue;
    if ((key === "minimum" || key === "maximum") && SAFE_INT_BOUNDS.includes(value as number)) {
      continue;
    }
    out[key] = clean(value);
  }
  return out;
}

/** Converts a zod schema to the JSON Schema sent to the model. */
export function jsonSchemaOf(input: z.ZodType): JsonSchema {
  return clean(z.toJSONSchema(input, { io: "input" })) as JsonSchema;
}

/** Formats zod issues as short `path: message` lines. */
function formatIssues(error: z.ZodError): string {
  return error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join(".") : "(arguments)";
    return `${path}: ${issue.message}`;
  }).join("\n");
}

/**
 * Builds a `Tool` from a zod-described spec.
 *
 * @example A read-only tool with validated arguments
 * ```ts
 * import { defineTool } from "@reasonix/reasonix";
 * import { z } from "zod";
 *
 * const shout = defineTool({
 *   name: "shout",
 *   description: "Returns the text in capitals.",
 *   input: z.object({ text: z.string() }),
 *   readOnly: true,
 *   run: (args) => Promise.resolve({ content: args.text.toUpperCase() }),
 * });
 * console.log(shout.parse?.({ text: 1 })); // { ok: false, error: "text: Invalid input: ..." }
 * // Pass it to `openHost({ tools: [shout] })` to offer it to every agent of the host.
 * ```
 */
export function defineTool<Args>(spec: ToolSpec<Args>): Tool<Args> {
  // ToolInput is the structural view of a zod schema; the JSON Schema needs the real one.
  const schema = jsonSchemaOf(spec.input as unknown as z.ZodType);
  return {
    name: spec.name,
    description: spec.description,
    schema,
    readOnly: spec.readOnly,
    parse(args: unknown): ParseResult<Args> {
      const result = spec.input.safeParse(args);
      return result.success
        ? { ok: true, value: result.data }
        : { ok: false, error: formatIssues(result.error as z.ZodError) };
    },
    access: spec.access,
    execute: spec.run,
  };
}
