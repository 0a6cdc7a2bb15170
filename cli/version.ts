/**
 * The program version. Release builds inject the `git describe` version through
 * `setVersion` in a generated entry module; development runs report the deno.json version.
 *
 * @module
 */

/** The version in deno.json; a test keeps the two in step. */
export const DEV_VERSION = "0.1.0";

let injected: string | undefined;

/** Overrides the reported version (used by release entry points). */
export function setVersion(value: string): void {
  injected = value;
}

/** The version this program reports. */
export function version(): string {
  return injected ?? DEV_VERSION;
}
