/**
 * The one door to the `ssh2` package: loaded on first use only, so a local run never pays for
 * it (nor for its crypto set-up). Everything else in `remote/` imports types from here.
 *
 * @module
 */
// @ts-types="npm:@types/ssh2"
import type * as Ssh2 from "ssh2";

export type {
  AuthenticationType,
  Client,
  ClientChannel,
  ConnectConfig,
  FileEntryWithStats,
  ParsedKey,
  SFTPWrapper,
  Stats,
} from "ssh2";

/** The `ssh2` module. */
export type Ssh2Module = typeof Ssh2;

let loading: Promise<Ssh2Module> | undefined;

/** Loads `ssh2` (once). */
export function loadSsh2(): Promise<Ssh2Module> {
  loading ??= import("ssh2").then((m) => m.default as Ssh2Module);
  return loading;
}
