/**
 * What a headless front end knows about a run before its first event.
 *
 * @module
 */

/** The facts the `system`/`init` line and the JSON summary report. */
export interface RunInfo {
  /** The session the turns are appended to. */
  sessionId: string;
  /** The model reference `-m` accepts: `provider/model`. */
  model: string;
  /** Tool names the model is offered, sorted as the model sees them. */
  tools: readonly string[];
  /** The working directory of the run. */
  cwd: string;
  /** The active permission preset, e.g. `ask` or `auto`. */
  permissionMode: string;
  /** MCP servers of the run and how each connection ended up, when known. */
  mcpServers?: readonly { name: string; status: string }[];
  /** The Reasonix version, when known. */
  version?: string;
}
