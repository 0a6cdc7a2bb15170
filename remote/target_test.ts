import assert from "node:assert/strict";
import { parseRemoteTarget, resolveTarget } from "./target.ts";

Deno.test("targets parse as [user@]host[:port]:/path", () => {
  assert.deepEqual(parseRemoteTarget("dev@box:2222:/srv/app"), {
    user: "dev",
    host: "box",
    port: 2222,
    path: "/srv/app",
  });
  assert.deepEqual(parseRemoteTarget("box:/srv/app"), { host: "box", path: "/srv/app" });
  assert.deepEqual(parseRemoteTarget("box:~/code"), { host: "box", path: "~/code" });
  assert.deepEqual(parseRemoteTarget("[::1]:22:/x"), { host: "::1", port: 22, path: "/x" });
  for (const bad of ["box", "box:relative/path", "u@box:99999:/x", "/just/a/path"]) {
    assert.throws(
      () => parseRemoteTarget(bad),
      (e: Error & { code?: string }) =>
        e.code === "remote_target_invalid" && e.message.includes("user@host[:port]:/path"),
      bad,
    );
  }
});

Deno.test("ssh config supplies HostName, User, Port, IdentityFile and ProxyJump", async () => {
  const sshConfig = `
Host devbox
  HostName 10.0.0.5
  User alice
  Port 2200
  IdentityFile ~/.ssh/dev_key
  ProxyJump jump

Host jump
  HostName jump.example.com
  User bob
`;
  const t = await resolveTarget({ host: "devbox", path: "/srv" }, {
    home: "/home/me",
    localUser: "me",
    sshConfig,
  });
  assert.equal(t.hostName, "10.0.0.5");
  assert.equal(t.user, "alice");
  assert.equal(t.port, 2200);
  assert.deepEqual(t.identityFiles, [
    "/home/me/.ssh/dev_key",
    "/home/me/.ssh/id_ed25519",
    "/home/me/.ssh/id_ecdsa",
    "/home/me/.ssh/id_rsa",
  ]);
  assert.equal(t.jumps.length, 1);
  assert.equal(t.jumps[0].hostName, "jump.example.com");
  assert.equal(t.jumps[0].user, "bob");
  assert.equal(t.jumps[0].port, 22);
  // What the command line says wins over the config.
  const given = await resolveTarget({ host: "devbox", user: "root", port: 22, path: "/" }, {
    home: "/home/me",
    localUser: "me",
    sshConfig,
  });
  assert.equal(given.user, "root");
  assert.equal(given.port, 22);
  // No config: the local user, port 22, the default identities.
  const plain = await resolveTarget({ host: "h", path: "/" }, {
    home: "/home/me",
    localUser: "me",
    sshConfig: "",
  });
  assert.deepEqual([plain.user, plain.port, plain.hostName, plain.jumps], ["me", 22, "h", []]);
});
