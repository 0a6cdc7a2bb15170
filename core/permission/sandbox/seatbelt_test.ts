import assert from "node:assert/strict";
import { seatbeltArgs, seatbeltProfile } from "./seatbelt.ts";
import type { SandboxSpec } from "./spec.ts";

const SPEC: SandboxSpec = {
  command: "make test",
  cwd: "/Users/u/ws",
  writable: ["/Users/u/ws", '/private/var/folders/x/"quoted" dir'],
  hidden: [{ path: "/Users/u/.ssh", dir: true }, { path: "/Users/u/ws/.env", dir: false }],
  network: false,
  tmp: "/private/var/folders/x/reasonix-1/sandbox-tmp",
  shell: "/bin/bash",
};

Deno.test("the Seatbelt profile denies by default and allows reads everywhere", () => {
  const { profile } = seatbeltProfile(SPEC);
  const lines = profile.split("\n");
  assert.equal(lines[0], "(version 1)");
  assert.equal(lines[1], "(deny default)");
  assert.ok(lines.includes("(allow file-read*)"));
  assert.ok(lines.includes("(allow process-exec)"));
});

Deno.test("the Seatbelt profile allows writes only under the writable roots, by parameter", () => {
  const { profile, params } = seatbeltProfile(SPEC);
  assert.match(
    profile,
    /\(allow file-write\*\n {2}\(subpath \(param "WRITABLE_ROOT_0"\)\)\n {2}\(subpath \(param "WRITABLE_ROOT_1"\)\)\n {2}\(subpath \(param "WRITABLE_ROOT_2"\)\)\)/,
  );
  assert.deepEqual(params.WRITABLE_ROOT_0, "/Users/u/ws");
  assert.deepEqual(params.WRITABLE_ROOT_1, '/private/var/folders/x/"quoted" dir');
  assert.deepEqual(params.WRITABLE_ROOT_2, "/private/var/folders/x/reasonix-1/sandbox-tmp");
  // Paths never appear in the profile text, so quotes in them cannot change its meaning.
  assert.ok(!profile.includes("/Users/u"));
  assert.equal(profile.match(/\(allow file-write\*/g)?.length, 1);
});

Deno.test("forbid_read paths are denied for reading and writing after the allowances", () => {
  const { profile, params } = seatbeltProfile(SPEC);
  const deny = profile.indexOf("(deny file-read* file-write*");
  assert.ok(deny > profile.indexOf("(allow file-read*)"));
  assert.ok(deny > profile.indexOf("(allow file-write*"));
  assert.match(
    profile,
    /\(subpath \(param "FORBIDDEN_0"\)\)\n {2}\(literal \(param "FORBIDDEN_1"\)\)\)/,
  );
  assert.equal(params.FORBIDDEN_0, "/Users/u/.ssh");
  assert.equal(params.FORBIDDEN_1, "/Users/u/ws/.env");
});

Deno.test("network is allowed only when the preset keeps it", () => {
  assert.ok(!seatbeltProfile(SPEC).profile.includes("(allow network-outbound)\n"));
  assert.ok(
    seatbeltProfile({ ...SPEC, network: true }).profile.includes("(allow network-outbound)\n"),
  );
});

Deno.test("a read-only profile has no file-write allowance besides devices", () => {
  const { profile, params } = seatbeltProfile({ ...SPEC, writable: [], tmp: undefined });
  assert.ok(!profile.includes("(allow file-write*"));
  assert.deepEqual(Object.keys(params).filter((k) => k.startsWith("WRITABLE")), []);
});

Deno.test("sandbox-exec arguments pass the profile, the parameters and the command", () => {
  const args = seatbeltArgs(SPEC);
  assert.equal(args[0], "-p");
  assert.ok(args.includes("-DWRITABLE_ROOT_0=/Users/u/ws"));
  assert.deepEqual(args.slice(args.indexOf("--")), [
    "--",
    "/usr/bin/env",
    "TMPDIR=/private/var/folders/x/reasonix-1/sandbox-tmp",
    "/bin/bash",
    "-c",
    "make test",
  ]);
});

Deno.test("control files are denied by name, present or not, and pinned parents by entry", () => {
  const { profile, params } = seatbeltProfile({
    ...SPEC,
    readOnly: ["/Users/u/ws/.git/hooks"],
    guarded: ["/Users/u/ws/.mcp.json"],
    pinned: ["/Users/u/ws/.git"],
  });
  const deny = profile.indexOf("(deny file-write*\n");
  assert.ok(deny > profile.indexOf("(allow file-write*"), "after the writable roots");
  assert.match(
    profile,
    /\(deny file-write\*\n {2}\(subpath \(param "CONTROL_0"\)\)\n {2}\(subpath \(param "CONTROL_1"\)\)\n {2}\(literal \(param "PINNED_0"\)\)\)/,
  );
  assert.equal(params.CONTROL_0, "/Users/u/ws/.git/hooks");
  assert.equal(params.CONTROL_1, "/Users/u/ws/.mcp.json");
  assert.equal(params.PINNED_0, "/Users/u/ws/.git");
  assert.ok(!seatbeltProfile(SPEC).profile.includes("CONTROL_"));
});

Deno.test("without network the only unix socket is syslog, unless allow_unix_sockets", () => {
  const sockets = (profile: string) => profile.split("\n").filter((l) => l.includes("unix-socket"));
  assert.deepEqual(sockets(seatbeltProfile(SPEC).profile), [
    '(allow network-outbound (remote unix-socket (path-literal "/private/var/run/syslog")))',
  ]);
  assert.deepEqual(sockets(seatbeltProfile({ ...SPEC, unixSockets: true }).profile), [
    "(allow network-outbound (remote unix-socket))",
  ]);
  assert.ok(!seatbeltProfile({ ...SPEC, unixSockets: true }).profile.includes("(allow network*"));
});
