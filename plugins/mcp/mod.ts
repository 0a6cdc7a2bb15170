/**
 * MCP plugins (spec §3.3, §3.16): stdio, Streamable HTTP and legacy SSE servers as tools,
 * prompts and resources, with OAuth, on the official MCP TypeScript SDK.
 *
 * @module
 */
export type * from "./types.ts";
export {
  ambiguousServerName,
  checkDeclaration,
  declarationFiles,
  declarationsNamed,
  defaultConcurrency,
  effectiveDeclarations,
  hasStaticAuthorization,
  loadMcpDeclarations,
  McpConfigFileError,
  type McpDeclarationSet,
  resolveEntries,
  resolveServer,
  serversFromMcpJson,
  serversFromToml,
  SOURCE_ORDER,
  type VarExpander,
} from "./config.ts";
export { addDeclaration, type EditResult, removeDeclaration } from "./config_edit.ts";
export { DIRECT_TOOL_BUDGET, McpHost, type McpHostOptions } from "./host.ts";
export type { McpClientCustomization } from "./session.ts";
export type { AuthorizationOpener } from "./oauth_provider.ts";
export { canonicalResource, clearOAuthState, oauthFile, OAuthStore } from "./oauth_store.ts";
export { AuthorizationError } from "./oauth_loopback.ts";
export {
  classifyError,
  describeErrorClass,
  McpLaunchRefusedError,
  McpUnavailableError,
  StartupTimeoutError,
} from "./failure.ts";
export { McpConnectionLostError } from "./supervisor.ts";
export {
  mcpCapabilityId,
  mcpToolName,
  parseResourceReference,
  resourceReference,
} from "./names.ts";
export { bypassesProxy, proxyFor } from "./http_fetch.ts";
export { formatProgress } from "./tool_adapter.ts";
export { stripControl } from "./text.ts";
