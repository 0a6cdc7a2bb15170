/**
 * Port forwards over a remote workspace's SSH connection (local → remote, remote → local).
 *
 * @module
 */
export {
  type Forward,
  forwardLocal,
  forwardRemote,
  type LocalForwardOptions,
  type RemoteForwardOptions,
} from "./forward.ts";
