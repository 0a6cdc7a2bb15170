/**
 * The agent loop (spec §3.4): `Agent`, its `Session`, the event stream every front end
 * renders, the central tool pipeline and the stable system prompt.
 *
 * @module
 */
export {
  Agent,
  type AgentOptions,
  type BuiltTurn,
  type SideRequest,
  type TurnSource,
} from "./agent.ts";
export { Session } from "./session.ts";
export type * from "./events.ts";
export {
  type ApprovalBroker,
  type ApprovalChoice,
  type ApprovalRequest,
  StreamApprovals,
} from "./approval.ts";
export {
  type ExecuteOptions,
  executeToolCall,
  type GateDecision,
  type ToolGate,
} from "./tool_exec.ts";
export { boundText, MAX_TOOL_CONTENT_BYTES } from "./bound.ts";
export { addUsage, cacheHitRatio, costOf, emptyTotals } from "./cost.ts";
export {
  decorateUserTurn,
  environmentBlock,
  type EnvironmentFacts,
  SYSTEM_PROMPT,
} from "./system_prompt.ts";
export { instructionBlocks, readInstructionFiles } from "./instructions.ts";
export { MISSING_RESULT, sanitizeHistory } from "./sanitize.ts";
export { StormBreaker } from "./storm.ts";
