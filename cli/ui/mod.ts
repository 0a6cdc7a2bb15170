/**
 * The interactive terminal UI (spec §4): an Ink app driven by a controller, with approvals,
 * input history and the MCP view. `cli/interactive.ts` composes it; headless runs never load it.
 *
 * @module
 */
export { HostBackend } from "./backend.ts";
export { UiApprovalBroker } from "./broker.ts";
export { InputHistory } from "./history.ts";
export { mcpView } from "./mcp_view.ts";
export { type ChatAppOptions, runChatApp } from "./run_app.tsx";
export { BUILTIN_NAMES } from "./slash.ts";
export { colorWanted } from "./style.ts";
