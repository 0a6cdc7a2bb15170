/**
 * Opening a remote workspace: connect, probe the host once, check the path.
 *
 * @module
 */
export { type OpenedRemote, type OpenRemoteOptions, openRemoteWorkspace } from "./open.ts";
export {
  describeProbe,
  parseProbe,
  PROBED_PROGRAMS,
  probeHost,
  probeScript,
  type RemoteProbe,
} from "./probe.ts";
