/**
 * Remote-SSH workspaces: the tools run on another machine over SSH (files over SFTP,
 * processes over exec channels) while the agent loop, the keys and the UI stay local.
 * Nothing here imports the command line or the agent; the UI is reached through callbacks.
 *
 * @module
 */
export * from "./bootstrap/mod.ts";
export * from "./forward/mod.ts";
export * from "./sftpfs/mod.ts";
export {
  type ConnectOptions,
  type RemoteCallbacks,
  SshConnection,
  type UnknownHostKey,
} from "./connection.ts";
export { RemoteError, type RemoteErrorCode } from "./errors.ts";
export { droppedNote, spawnRemote, wrapCommand } from "./exec.ts";
export {
  addKnownHost,
  fingerprint,
  type HostKeyVerdict,
  knownHostsName,
  verifyHostKey,
} from "./known_hosts.ts";
export {
  defaultIdentities,
  parseRemoteTarget,
  type RemoteTargetSpec,
  type ResolvedHop,
  type ResolvedTarget,
  resolveTarget,
} from "./target.ts";
export { type RemoteHostFacts, RemoteWorkspace } from "./workspace.ts";
