/**
 * Plugins loaded at run time. MCP servers are the one kind so far.
 *
 * @module
 */
export * as mcp from "./mcp/mod.ts";
