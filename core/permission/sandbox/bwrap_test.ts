import assert from "node:assert/strict";
import { bwrapArgs } from "./bwrap.ts";
import type { SandboxSpec } from "./spec.ts";

const SPEC: SandboxSpec = {
  command: "make test",
  cwd: "/ws",
  writable: ["/ws", "/tmp/reasonix-1"],
  hidden: [{ path: "/home/u/.ssh", dir: true }, { path: "/ws/.env", dir: false }],
  network: false,
  tmp: "/tmp/reasonix-1/sandbox-tmp",
  shell: "/bin/bash",
};

/** The argument pairs/triples as one string per mount, in order. */
function mounts(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (["--ro-bind", "--bind"].includes(args[i])) {
      out.push(`${args[i]} ${args[i + 1]} ${args[i + 2]}`);
      i += 2;
    } else if (["--tmpfs", "--remount-ro", "--dev", "--proc"].includes(args[i])) {
      out.push(`${args[i]} ${args[i + 1]}`);
      i++;
    }
  }
  return out;
}

Deno.test("bwrap mounts everything read-only, then the writable roots, then hides forbid_read", () => {
  assert.deepEqual(mounts(bwrapArgs(SPEC)), [
    "--ro-bind / /",
    "--dev /dev",
    "--proc /proc",
    "--bind /tmp/reasonix-1/sandbox-tmp /tmp",
    "--bind /ws /ws",
    "--bind /tmp/reasonix-1 /tmp/reasonix-1",
    "--tmpfs /home/u/.ssh",
    "--remount-ro /home/u/.ssh",
    "--ro-bind /dev/null /ws/.env",
  ]);
});

Deno.test("bwrap drops every capability, isolates processes and runs the command last", () => {
  const args = bwrapArgs(SPEC);
  for (const flag of ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net"]) {
    assert.ok(args.includes(flag), flag);
  }
  assert.deepEqual(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2), [
    "--cap-drop",
    "ALL",
  ]);
  assert.deepEqual(args.slice(-6), ["--chdir", "/ws", "--", "/bin/bash", "-c", "make test"]);
});

Deno.test("bwrap keeps the network only when the preset allows it, and a fresh /tmp when asked", () => {
  const open = bwrapArgs({
    ...SPEC,
    network: true,
    tmp: undefined,
    writable: [],
    visible: ["/tmp/ws"],
  });
  assert.ok(!open.includes("--unshare-net"));
  assert.deepEqual(mounts(open).slice(0, 4), [
    "--ro-bind / /",
    "--dev /dev",
    "--proc /proc",
    "--tmpfs /tmp",
  ]);
  assert.ok(!mounts(open).some((m) => m.startsWith("--bind")));
  // A read-only workspace under /tmp stays visible above the fresh /tmp.
  assert.equal(mounts(open)[4], "--ro-bind /tmp/ws /tmp/ws");
});

Deno.test("bwrap pins parents, then makes control files read-only, before hiding forbid_read", () => {
  const args = bwrapArgs({
    ...SPEC,
    writable: ["/ws/cache", "/ws"],
    hidden: [{ path: "/ws/config/secret.env", dir: false }],
    pinned: ["/ws/.git", "/ws/config"],
    readOnly: ["/ws/.git/hooks", "/ws/.mcp.json", "/ws/.git/config"],
  });
  assert.deepEqual(mounts(args).slice(4), [
    // Outer directories first: a later bind from the host tree would cover an inner one.
    "--bind /ws /ws",
    "--bind /ws/cache /ws/cache",
    "--bind /ws/.git /ws/.git",
    "--bind /ws/config /ws/config",
    "--ro-bind /ws/.mcp.json /ws/.mcp.json",
    "--ro-bind /ws/.git/config /ws/.git/config",
    "--ro-bind /ws/.git/hooks /ws/.git/hooks",
    "--ro-bind /dev/null /ws/config/secret.env",
  ]);
});

Deno.test("without network bwrap reads the unix-socket filter from descriptor 3", () => {
  const flag = (spec: SandboxSpec) => {
    const args = bwrapArgs(spec);
    const at = args.indexOf("--seccomp");
    return at < 0 ? undefined : args[at + 1];
  };
  assert.equal(flag(SPEC), "3");
  assert.equal(flag({ ...SPEC, unixSockets: true }), undefined);
  assert.equal(flag({ ...SPEC, network: true }), undefined);
  // The flag belongs to bwrap, before the command.
  const args = bwrapArgs(SPEC);
  assert.ok(args.indexOf("--seccomp") < args.indexOf("--"));
});
