/**
 * The host (what lives as long as the process) and the one way to build an agent from an
 * `AgentSpec`, with the turn builder every agent uses.
 *
 * @module
 */
export {
  type AgentSpec,
  Host,
  HostedAgent,
  type HostMcp,
  type HostParts,
  type ModelBinding,
} from "./host.ts";
export { localDate, TurnBuilder, type TurnBuilderOptions } from "./turn_builder.ts";
export {
  type HostEndpoint,
  type HostFlags,
  type HostMcpStart,
  type HostTrust,
  openHost,
  type OpenHostOptions,
  TRUST_NO_PROJECT,
} from "./open.ts";
export { type ChildEnv, childEnv, type ChildEnvConfig, withheldNames } from "./child_env.ts";
