/**
 * Reasonix as a library: open a {@linkcode Host} (configuration, models, permissions, tools,
 * sessions), build agents on it with {@linkcode Host.createAgent}, and render the one event
 * stream each run yields. Importing this module has no side effects; import
 * `@reasonix/reasonix/builtins` once to register the built-in provider kinds and tools, and
 * `@reasonix/reasonix/testing` for a fake LLM server to test your own tools against.
 *
 * @example Run one task and print what happens
 * ```ts
 * import "@reasonix/reasonix/builtins";
 * import { openHost } from "@reasonix/reasonix";
 *
 * async function main(): Promise<void> {
 *   await using host = await openHost({ cwd: Deno.cwd(), env: Deno.env.toObject() });
 *   await using agent = await host.createAgent({});
 *   for await (const event of agent.run({ text: "Say hello" }, { signal: AbortSignal.timeout(60_000) })) {
 *     if (event.type === "text") console.log(event.text);
 *   }
 * }
 * ```
 *
 * @module
 */
export {
  type MemoryErrorCode,
  ReasonixError,
  type ReasonixErrorCode,
  type RemoteErrorCode,
} from "./errors.ts";
export { ConfigError } from "./core/config/errors.ts";
export { ProviderError, type ProviderErrorCode } from "./providers/errors.ts";

export {
  type HostEndpoint,
  type HostFlags,
  type HostMcpStart,
  type HostTrust,
  type HostWorkspace,
  openHost,
  type OpenHostOptions,
  TRUST_NO_PROJECT,
} from "./core/host/open.ts";
export {
  type AgentSpec,
  Host,
  HostedAgent,
  type HostMcp,
  type HostParts,
  type ModelBinding,
} from "./core/host/host.ts";
export type { TrustDeclaration, TrustKind } from "./core/config/trust.ts";
export {
  type PlanExitReason,
  PlanMode,
  type PlanModeChange,
  type PlanModeOptions,
} from "./core/plan/mod.ts";
export type { McpResourceReader } from "./core/references/types.ts";
export {
  CONTINUE_TEXT,
  GOAL_ACTIONS,
  type GoalAction,
  type GoalBounds,
  GoalDriver,
  type GoalDriverOptions,
  type GoalEvent,
  GoalRefusal,
  GoalRunner,
  Goals,
  type GoalsOptions,
  type GoalState,
  type GoalStatus,
} from "./core/goal/mod.ts";
export type { GoalRecord } from "./core/store/records.ts";

export {
  Coordinator,
  type CoordinatorOptions,
  type Plan,
  type PlanBody,
  type PlanStep,
  renderPlan,
  type Route,
  type RouteDecision,
  type RouteReason,
  routeTurn,
  type TouchPoint,
  type TurnRoute,
} from "./core/coordinator/mod.ts";
export type {
  ChildGrant,
  ContextCapsule,
  Profile,
  ProfileExecSpec,
  Receipts,
  SubagentResult,
} from "./core/subagent/mod.ts";
export type {
  AgentEvent,
  EventOrigin,
  GoalChange,
  PermissionDecision,
  Runner,
  RunStatus,
  UsageTotals,
  UserInput,
} from "./core/agent/events.ts";
export { type AppendListener, Session } from "./core/agent/session.ts";
export type { CompactionReport } from "./core/context/manager.ts";
export {
  type CacheBreak,
  type CacheBreakCause,
  CacheMeter,
  type CacheMeterOptions,
  type CacheObservation,
  type CacheTotals,
  type ObserveOptions,
  type PlannedStep,
} from "./core/context/cache_meter.ts";
export {
  type ApprovalBroker,
  type ApprovalChoice,
  type ApprovalRequest,
  StreamApprovals,
} from "./core/agent/approval.ts";
export type {
  Chunk,
  FinishReason,
  ImagePart,
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
  type KindDescriptor,
  type ProviderFactory,
  type ProviderSettings,
  registerProviderKind,
  type RetryPolicy,
} from "./providers/registry.ts";
export { defineTool, type ToolInput, type ToolSpec } from "./tools/define.ts";
export { registerBuiltinTool, ToolRegistry } from "./tools/registry.ts";
export type {
  ParseResult,
  ReadGuard,
  ShellLaunch,
  ShellLauncher,
  ShellPrograms,
  ShellSpawnOptions,
  Tool,
  ToolAccess,
  ToolContext,
  ToolErrorCode,
  ToolResult,
  ToolSettings,
} from "./tools/types.ts";
export type {
  DirEntry,
  FileHandle,
  FileInfo,
  FsOptions,
  MkdirOptions,
  OpenOptions,
  ProcessSignal,
  ProcessStatus,
  RemoveOptions,
  SpawnOptions,
  TempDirOptions,
  Workspace,
  WorkspaceOs,
  WorkspaceProcess,
  WriteFileOptions,
} from "./tools/workspace/mod.ts";
export type { Capability, CapabilitySource } from "./tools/capability.ts";
