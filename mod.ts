/**
 * Reasonix as a library: the agent loop, its events, the tool and provider interfaces and
 * registries, and the configuration layer. Importing this module has no side effects; import
 * `@reasonix/reasonix/builtins` to register the built-in provider kinds and tools.
 *
 * @example
 * ```ts
 * import "@reasonix/reasonix/builtins";
 * import { Agent, builtinTools, createProvider, Session, SYSTEM_PROMPT, ToolRegistry } from "@reasonix/reasonix";
 * ```
 *
 * @module
 */
export { ReasonixError } from "./errors.ts";

export type {
  Chunk,
  FinishReason,
  JsonSchema,
  Message,
  Provider,
  ProviderRequest,
  Role,
  ToolCall,
  ToolSchema,
  Usage,
} from "./providers/types.ts";
export {
  ContextOverflowError,
  ProviderError,
  type ProviderErrorCode,
  ProviderOptionError,
} from "./providers/errors.ts";
export {
  createProvider,
  hasProviderKind,
  type ProviderFactory,
  providerKinds,
  type ProviderSettings,
  registerProviderKind,
  type RetryPolicy,
} from "./providers/registry.ts";
export { createOpenAiProvider, OpenAiProvider } from "./providers/openai/provider.ts";
export { AnthropicProvider, createAnthropicProvider } from "./providers/anthropic/provider.ts";
export { createResponsesProvider, ResponsesProvider } from "./providers/responses/provider.ts";
export { createReplayProvider, ReplayProvider } from "./providers/replay/provider.ts";
export { capabilitiesFor } from "./providers/capabilities.ts";
export { openRecording } from "./providers/recording.ts";

export type {
  ParseResult,
  ShellLauncher,
  ShellSpawnOptions,
  Tool,
  ToolAccess,
  ToolContext,
  ToolResult,
  ToolSettings,
} from "./tools/types.ts";
export { defineTool, jsonSchemaOf, type ToolSpec } from "./tools/define.ts";
export { builtinTools, registerBuiltinTool, ToolRegistry } from "./tools/registry.ts";
export { canonicalize, canonicalJson } from "./tools/canonical.ts";
export { type Capability, CapabilityHub, useCapabilityTool } from "./tools/capability.ts";
export { directShell } from "./tools/shell.ts";

export { Agent, type AgentOptions } from "./core/agent/agent.ts";
export { Session } from "./core/agent/session.ts";
export type { AgentEvent, Runner, RunStatus, UsageTotals, UserInput } from "./core/agent/events.ts";
export {
  decorateUserTurn,
  environmentBlock,
  type EnvironmentFacts,
  SYSTEM_PROMPT,
} from "./core/agent/system_prompt.ts";
export { executeToolCall, type GateDecision, type ToolGate } from "./core/agent/tool_exec.ts";
export type { ApprovalBroker, ApprovalChoice, ApprovalRequest } from "./core/agent/approval.ts";
export { sanitizeHistory } from "./core/agent/sanitize.ts";
export {
  type CompactionReport,
  CompactionRequiredError,
  ContextManager,
  type ContextManagerOptions,
} from "./core/context/manager.ts";
export { TokenEstimator } from "./core/context/estimator.ts";
export { type OpenedSession, openSession } from "./core/store/session_store.ts";
export { listSessions, sessionsDir, type SessionSummary } from "./core/store/sessions.ts";
export { readTranscript, TranscriptWriter } from "./core/store/transcript.ts";
export { Bm25Index, tokenize } from "./core/memory/bm25.ts";
export { HistoryIndex, historyTool } from "./core/memory/history.ts";
export { type Fact, FactStore } from "./core/memory/facts.ts";
export { memoryTools } from "./core/memory/tools.ts";
export { recallBlock } from "./core/memory/recall.ts";
export {
  applyProjectMode,
  type Permissions,
  setupPermissions,
  validatePermissionsConfig,
} from "./core/permission/mod.ts";
export { McpHost, type McpHostOptions } from "./plugins/mcp/mod.ts";
export { MAX_TOOL_CONTENT_BYTES } from "./core/agent/bound.ts";
export { addUsage, cacheHitRatio, costOf } from "./core/agent/cost.ts";

export {
  applyFlags,
  ConfigError,
  loadConfig,
  outputTokenBudget,
  reasonixHome,
  resolveApiKey,
  resolveModel,
} from "./core/config/mod.ts";
export type {
  AgentConfig,
  Config,
  PermissionsConfig,
  Price,
  ProviderConfig,
  ResolvedModel,
  SandboxConfig,
  ToolsConfig,
} from "./core/config/types.ts";

export { version } from "./cli/version.ts";
