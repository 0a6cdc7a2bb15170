/**
 * Adapts the MCP host of a runtime to the small `McpView` the UI renders through.
 *
 * @module
 */
import type { McpAccess } from "../mcp_runtime.ts";
import type { McpView } from "./hooks.ts";

/** The UI's view of `host`. Prompt messages are joined into the text of one user turn. */
export function mcpView(host: McpAccess): McpView {
  return {
    servers: () =>
      host.status().map((s) => ({
        name: s.name,
        phase: s.phase,
        transport: s.transport,
        ...(s.error ? { error: s.httpStatus ? `${s.error} ${s.httpStatus}` : s.error } : {}),
        ...(s.detail ? { detail: s.detail } : {}),
        // The same redacted fields as `reasonix mcp list`: never a message or a session id.
        ...(s.protocol ? { protocol: s.protocol } : {}),
        listener: s.listener,
        reconnects: s.reconnects,
        tools: s.tools,
        prompts: s.prompts,
        resources: s.resources,
      })),
    prompts: () =>
      host.prompts().map((p) => ({
        command: p.command,
        server: p.server,
        prompt: p.prompt,
        ...(p.description ?? p.title ? { description: p.description ?? p.title } : {}),
        arguments: p.arguments,
      })),
    resources: () =>
      host.resources().map((r) => ({
        server: r.server,
        uri: r.uri,
        name: r.title ?? r.name,
        ...(r.description ? { description: r.description } : {}),
      })),
    getPrompt: async (request) => {
      const result = await host.getPrompt(request);
      return result.messages.map((m) => m.text).filter((t) => t.trim()).join("\n\n");
    },
    readResource: async (server, uri, opts) => (await host.readResource(server, uri, opts)).text,
  };
}
