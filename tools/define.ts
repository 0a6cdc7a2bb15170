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

/** A built-in tool description. */
export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  readOnly: boolean;
  access?(args: z.infer<S>): ToolAccess;
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolResult>;
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

/** Builds a `Tool` from a zod-described spec. */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): Tool<z.infer<S>> {
  const schema = jsonSchemaOf(spec.input);
  return {
    name: spec.name,
    description: spec.description,
    schema,
    readOnly: spec.readOnly,
    parse(args: unknown): ParseResult<z.infer<S>> {
      const result = spec.input.safeParse(args);
      return result.success
        ? { ok: true, value: result.data }
        : { ok: false, error: formatIssues(result.error) };
    },
    access: spec.access,
    execute: spec.run,
  };
}
