/**
 * Names the model and the UI see for MCP things: tools `mcp__<server>__<tool>`, prompt
 * commands `/mcp__<server>__<prompt>`, capabilities `mcp:<server>:<tool>` and resource
 * references `@<server>:<uri>`.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** Longest function name the OpenAI-compatible APIs accept. */
const MAX_NAME = 64;

function clean(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * `mcp__<server>__<name>` with characters the model APIs refuse replaced by `_`. A name
 * longer than 64 characters keeps its start and gains a short hash of the original.
 */
export function mcpToolName(server: string, name: string): string {
  const full = `mcp__${clean(server)}__${clean(name)}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash("sha256").update(`${server}\0${name}`).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** The `use_capability` id of a server's tool. */
export function mcpCapabilityId(server: string, tool: string): string {
  return `mcp:${server}:${tool}`;
}

/** `@<server>:<uri>` for a resource. */
export function resourceReference(server: string, uri: string): string {
  return `@${server}:${uri}`;
}

/**
 * Splits `@<server>:<uri>` (the leading `@` is optional). Returns undefined when the text has
 * no server part or no URI.
 */
export function parseResourceReference(text: string): { server: string; uri: string } | undefined {
  const body = text.startsWith("@") ? text.slice(1) : text;
  const colon = body.indexOf(":");
  if (colon <= 0 || colon === body.length - 1) return undefined;
  const server = body.slice(0, colon);
  if (/[\s@/]/.test(server)) return undefined;
  return { server, uri: body.slice(colon + 1) };
}
