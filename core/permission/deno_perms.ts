/**
 * The second wall: in the read-only preset the process gives up Deno's own write (and FFI)
 * permission after boot, so even a bug in the policy cannot make Reasonix write a file.
 *
 * `run` is kept on purpose: `bash` in the read-only preset runs only inside a read-only OS
 * sandbox (bubblewrap or Seatbelt), which the kernel enforces for the child independently of
 * this process, and the search tools start ripgrep. Revoking is irreversible for the process.
 *
 * @module
 */

/** Permissions {@linkcode revokeWritePermissions} gives up. */
export const REVOKED_IN_READ_ONLY: readonly Deno.PermissionName[] = ["write", "ffi"];

/** Revokes Deno's write and FFI permissions for the rest of the process. */
export async function revokeWritePermissions(): Promise<void> {
  for (const name of REVOKED_IN_READ_ONLY) {
    await Deno.permissions.revoke({ name } as Deno.PermissionDescriptor);
  }
}
