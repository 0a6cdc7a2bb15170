/**
 * The second wall: in the read-only preset the process gives up Deno's own write, run and FFI
 * permissions after boot, so even a bug in the policy or the sandbox cannot make Reasonix
 * write a file or start a program that could. The read-only preset therefore runs no shell
 * commands at all, and the search tools use their built-in engine instead of ripgrep. MCP
 * servers started before the lock-down keep running; one that dies cannot be restarted.
 * Revoking is irreversible for the process.
 *
 * @module
 */

/** Permissions {@linkcode revokeWritePermissions} gives up. */
export const REVOKED_IN_READ_ONLY: readonly Deno.PermissionName[] = ["write", "run", "ffi"];

/** Revokes Deno's write, run and FFI permissions for the rest of the process. */
export async function revokeWritePermissions(): Promise<void> {
  for (const name of REVOKED_IN_READ_ONLY) {
    await Deno.permissions.revoke({ name } as Deno.PermissionDescriptor);
  }
}
