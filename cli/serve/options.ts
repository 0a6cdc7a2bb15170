/**
 * `reasonix serve` as the command line asks for it: shared by the command definition
 * (`cli/commands/serve.ts`, always loaded) and the lazily loaded command, so the definition
 * imports nothing of the web app.
 *
 * @module
 */
import type { PermissionFlags } from "../permission_flags.ts";

/** `reasonix serve`, as the command line asks for it. */
export interface ServeCommandOptions {
  host?: string;
  port?: number;
  open: boolean;
  /** TLS certificate and key files (PEM); both or neither. */
  cert?: string;
  key?: string;
  model?: string;
  permissions: PermissionFlags;
}
