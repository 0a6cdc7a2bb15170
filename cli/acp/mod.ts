/**
 * `reasonix acp`: Reasonix as an Agent Client Protocol agent over stdio (docs/ACP.md). Loaded
 * lazily by `cli/commands/acp.ts`, with the ACP SDK, only when the command runs.
 *
 * @module
 */
export { acpCommand, type AcpCommandOptions } from "./command.ts";
export type { PermissionFlags } from "../permission_flags.ts";
