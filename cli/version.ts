/**
 * The program version. Release builds inject the `git describe` version, the commit and the
 * target through `setVersion` in a generated entry module; development runs report the
 * deno.json version. Nothing here imports anything: `reasonix --version` loads this file and
 * `cli/main.ts` only.
 *
 * @module
 */

/** The version in deno.json; a test keeps the two in step. */
export const DEV_VERSION = "0.1.0";

/** What a release build knows about itself besides the version. */
export interface BuildInfo {
  /** The full commit hash the build was made from. */
  commit?: string;
  /** The `deno compile` target, e.g. `x86_64-unknown-linux-gnu`. */
  target?: string;
}

let injected: string | undefined;
let build: BuildInfo = {};

/** Overrides the reported version (used by release entry points), with what else the build knows. */
export function setVersion(value: string, info: BuildInfo = {}): void {
  injected = value;
  build = { ...info };
}

/** The version this program reports. */
export function version(): string {
  return injected ?? DEV_VERSION;
}

/** `reasonix --version --json`. */
export interface VersionReport {
  name: "reasonix";
  version: string;
  /** The commit of a release build; `null` when not known (a development run). */
  commit: string | null;
  deno: string;
  v8: string;
  typescript: string;
  /** The compile target of a release build, else the platform the program runs on. */
  target: string;
}

/** Everything `--version --json` prints. */
export function versionReport(): VersionReport {
  return {
    name: "reasonix",
    version: version(),
    commit: build.commit ?? null,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    typescript: Deno.version.typescript,
    target: build.target ?? Deno.build.target,
  };
}
