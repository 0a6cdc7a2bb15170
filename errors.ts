/**
 * The error base shared by every layer. Callers branch on `code`, never on message text.
 *
 * @module
 */

/**
 * Every code a {@linkcode ReasonixError} may carry: one closed list, so a caller's `switch`
 * over `error.code` is checked by the compiler and a new failure has to be named here.
 */
export type ReasonixErrorCode =
  | ProviderErrorCode
  | MemoryErrorCode
  // Configuration files, reasonix.toml and .mcp.json alike.
  | "config_invalid"
  // The OS sandbox around shell commands.
  | "sandbox_unavailable"
  | "sandbox_path_changed"
  | "write_scope_not_approved"
  // Sessions and their transcripts.
  | "session_not_found"
  | "transcript_locked"
  | "transcript_read"
  | "transcript_write"
  // Context maintenance.
  | "compaction_required"
  // Images and the vision model.
  | "image_input"
  | "vision_failed"
  // MCP servers.
  | "mcp_authorization"
  | "mcp_launch_refused"
  | "mcp_startup_timeout"
  | "mcp_unavailable"
  // Goal mode: a goal operation that does not apply (stale revision, no goal, too early).
  | "goal_refused"
  // Remote SSH workspaces (remote/).
  | RemoteErrorCode;

/** The codes of remote-workspace failures (`RemoteError`, remote/errors.ts). */
export type RemoteErrorCode =
  | "remote_target_invalid"
  | "remote_unreachable"
  | "remote_auth_failed"
  | "remote_host_key_unknown"
  | "remote_host_key_changed"
  | "remote_path_missing"
  | "remote_tool_missing"
  | "remote_connection_lost";

/** The codes of provider failures (`ProviderError`, providers/errors.ts). */
export type ProviderErrorCode =
  | "provider_auth"
  | "provider_bad_request"
  | "provider_rate_limited"
  | "provider_server"
  | "provider_network"
  | "provider_stream"
  | "provider_idle_timeout"
  | "context_overflow";

/** The codes of memory-fact failures (`MemoryError`, core/memory/facts.ts). */
export type MemoryErrorCode =
  | "memory_conflict"
  | "memory_invalid"
  | "memory_not_found"
  | "memory_unsafe_path";

/**
 * A condition a caller is expected to handle, identified by a stable `code`.
 *
 * @example Branch on the code, not the message
 * ```ts
 * import { ReasonixError } from "@reasonix/reasonix";
 *
 * function explain(error: unknown): string {
 *   if (!(error instanceof ReasonixError)) throw error;
 *   return error.code === "provider_auth" ? "check your API key" : error.message;
 * }
 * ```
 */
export class ReasonixError extends Error {
  /** Stable machine-readable identifier, e.g. `config_invalid`. */
  readonly code: ReasonixErrorCode;

  /** `options.cause` keeps the underlying error for logs. */
  constructor(code: ReasonixErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ReasonixError";
    this.code = code;
  }
}
