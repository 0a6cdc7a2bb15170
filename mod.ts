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
export { ContextOverflowError, ProviderError, type ProviderErrorCode } from "./providers/errors.ts";
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
