/**
 * The refusal a stdio launcher throws, in a module of its own: the launcher is composed on
 * every run's start-up path, which must not load the MCP SDK that the rest of the failure
 * mapping needs.
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";

/**
 * A stdio server was not started because it may not run here as declared (no usable OS
 * sandbox for it). The message says why and what to do; it is shown as the failure's detail.
 */
export class McpLaunchRefusedError extends ReasonixError {
  constructor(message: string, options?: ErrorOptions) {
    super("mcp_launch_refused", message, options);
    this.name = "McpLaunchRefusedError";
  }
}
