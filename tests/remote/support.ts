/**
 * Opens a remote workspace on the sshd fixture, the way the command line does.
 *
 * @module
 */
import {
  type OpenedRemote,
  type OpenRemoteOptions,
  openRemoteWorkspace,
} from "../../remote/mod.ts";
import type { SshdFixture } from "./sshd.ts";

/** A remote workspace on `sshd`'s remote root, logging in with the fixture's key. */
export function openOnFixture(
  sshd: SshdFixture,
  extra: Partial<OpenRemoteOptions> = {},
): Promise<OpenedRemote> {
  return openRemoteWorkspace({
    target: { user: sshd.user, host: "127.0.0.1", port: sshd.port, path: sshd.remoteRoot },
    home: sshd.dir,
    localUser: sshd.user,
    knownHostsFiles: [sshd.knownHosts],
    identityFiles: [sshd.identity],
    sshConfig: "",
    ...extra,
  });
}
