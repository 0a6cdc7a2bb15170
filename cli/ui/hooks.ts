/**
 * What the interactive UI needs from the MCP layer. The UI renders through this small interface
 * only; without it `/mcp` says MCP is not connected instead of pretending, and `@server:uri`
 * stays text.
 *
 * @module
 */

/** One MCP server, for `/mcp`. */
export interface McpServerView {
  name: string;
  /** e.g. `starting`, `ready`, `needs_auth`, `failed`. */
  phase: string;
  /** e.g. `stdio`, `http`. */
  transport?: string;
  /** A short, safe failure class or message. */
  error?: string;
  /** Why it failed, when known: errno, exit status, the server's last stderr lines. */
  detail?: string;
  /** Negotiated MCP protocol version, once initialized. */
  protocol?: string;
  /** The server-to-client channel, e.g. `listening`, `post_only`, `lost`. */
  listener?: string;
  /** Sessions rebuilt after the first one (loss, expiry, re-authorization). */
  reconnects?: number;
  tools: number;
  prompts: number;
  resources: number;
}

/** An MCP prompt, offered as the slash command `/mcp__<server>__<prompt>`. */
export interface McpPromptView {
  /** The command without its slash, e.g. `mcp__github__review`. */
  command: string;
  server: string;
  prompt: string;
  description?: string;
  /** Positional order of the command's arguments. */
  arguments: { name: string; description?: string; required: boolean }[];
}

/** An MCP resource, offered in `@<server>:` completion. */
export interface McpResourceView {
  server: string;
  uri: string;
  name?: string;
  description?: string;
}

/** MCP as the UI sees it. */
export interface McpView {
  servers(): McpServerView[];
  prompts(): McpPromptView[];
  resources(): McpResourceView[];
  /** Renders a prompt with named arguments into the text of one user turn. */
  getPrompt(request: {
    server: string;
    prompt: string;
    args: Record<string, string>;
    signal: AbortSignal;
  }): Promise<string>;
  /** A resource's text, for `@<server>:<uri>`. */
  readResource(server: string, uri: string, opts: { signal: AbortSignal }): Promise<string>;
}
