import assert from "node:assert/strict";
import { join } from "node:path";
import { WriteScope } from "../confine.ts";
import {
  createSandboxShell,
  SandboxPathError,
  SandboxUnavailableError,
  WriteScopeError,
} from "./mod.ts";
import type { SandboxMode } from "../presets.ts";

const HAS_BWRAP = Deno.build.os === "linux" &&
  (await new Deno.Command("bwrap", { args: ["--version"], stdout: "null", stderr: "null" })
    .output().then((o) => o.success).catch(() => false));

/**
 * Scratch space outside /tmp: the sandbox gives commands a private /tmp, so a canary under the
 * host's /tmp would be invisible to them rather than protected by the read-only mount.
 */
async function dirs(): Promise<{ base: string; ws: string; temp: string; out: string }> {
  const parent = Deno.build.os === "linux" ? "/var/tmp" : undefined;
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "reasonix-sandbox-", dir: parent }),
  );
  const ws = join(base, "ws");
  const temp = join(base, "session");
  const out = join(base, "outside");
  for (const d of [ws, temp, out]) await Deno.mkdir(d);
  return { base, ws, temp, out };
}

function shell(mode: SandboxMode, scope: WriteScope, temp: string, opts: {
  os?: typeof Deno.build.os;
  which?: (name: string) => Promise<string | undefined>;
  network?: boolean;
  allowUnixSockets?: boolean;
  controlDirs?: string[];
} = {}) {
  return createSandboxShell({
    mode,
    network: opts.network ?? false,
    scope,
    tempDir: temp,
    os: opts.os,
    which: opts.which,
    presetName: mode === "read-only" ? "read-only" : "auto",
    allowUnixSockets: opts.allowUnixSockets,
    controlDirs: opts.controlDirs,
  });
}

async function run(argv: { program: string; args: string[] }, cwd: string) {
  const out = await new Deno.Command(argv.program, { args: argv.args, cwd, stdin: "null" })
    .output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

Deno.test("a restricted preset refuses to run when bubblewrap is missing", async () => {
  const d = await dirs();
  try {
    const launcher = shell("workspace-write", new WriteScope([d.ws]), d.temp, {
      os: "linux",
      which: () => Promise.resolve(undefined),
    });
    await assert.rejects(
      () => launcher.launch("touch x", { cwd: d.ws }),
      (e: Error) =>
        e instanceof SandboxUnavailableError &&
        /bubblewrap \(bwrap\) is not installed/.test(e.message) &&
        /never falls back to running it unconfined/.test(e.message),
    );
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("without an OS sandbox, read-only refuses and the others run as documented", async () => {
  const d = await dirs();
  try {
    const ro = shell("read-only", new WriteScope([d.ws]), d.temp, { os: "windows" });
    await assert.rejects(() => ro.launch("dir", { cwd: d.ws }), SandboxUnavailableError);
    const which = (name: string) => Promise.resolve(`/usr/bin/${name}`);
    const rw = shell("workspace-write", new WriteScope([d.ws]), d.temp, { os: "windows", which });
    assert.deepEqual(await rw.launch("dir", { cwd: d.ws }), {
      program: "/usr/bin/bash",
      args: ["-c", "dir"],
    });
    const none = shell("none", new WriteScope([d.ws]), d.temp, { which });
    assert.deepEqual(await none.launch("ls", { cwd: d.ws }), {
      program: "/usr/bin/bash",
      args: ["-c", "ls"],
    });
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test("extra write dirs are honoured only when approved", async () => {
  const d = await dirs();
  try {
    const scope = new WriteScope([d.ws, d.temp]);
    const launcher = shell("workspace-write", scope, d.temp, {
      os: "linux",
      which: (name) => Promise.resolve(name === "bwrap" ? "/usr/bin/bwrap" : undefined),
    });
    await assert.rejects(
      () => launcher.launch("touch x", { cwd: d.ws, writeDirs: [d.out] }),
      WriteScopeError,
    );
    scope.grantOnce(d.out);
    if (!HAS_BWRAP) return;
    const argv = await launcher.launch("touch x", { cwd: d.ws, writeDirs: [d.out] });
    assert.ok(argv.args.join(" ").includes(`--bind ${d.out} ${d.out}`));
    await assert.rejects(
      () => launcher.launch("touch x", { cwd: d.ws, writeDirs: [d.out] }),
      WriteScopeError,
    );
  } finally {
    await Deno.remove(d.base, { recursive: true });
  }
});

Deno.test({
  name: "bubblewrap confines writes to the roots and hides forbid_read",
  ignore: !HAS_BWRAP,
  async fn() {
    const d = await dirs();
    try {
      await Deno.writeTextFile(join(d.out, "secret"), "top secret");
      const scope = new WriteScope([d.ws, d.temp], [join(d.out, "secret")]);
      const launcher = shell("workspace-write", scope, d.temp);
      const argv = await launcher.launch(
        `touch inside; touch ${d.out}/escaped; echo tmp > /tmp/t; cat ${d.out}/secret; echo done`,
        { cwd: d.ws },
      );
      const r = await run(argv, d.ws);
      assert.match(r.text, /Read-only file system/);
      assert.doesNotMatch(r.text, /top secret/);
      assert.match(r.text, /done/);
      assert.ok((await Deno.stat(join(d.ws, "inside"))).isFile);
      await assert.rejects(() => Deno.stat(join(d.out, "escaped")));
      assert.equal(await Deno.readTextFile(join(d.temp, "sandbox-tmp", "t")), "tmp\n");

      const ro = shell("read-only", scope, d.temp);
      const r2 = await run(
        await ro.launch("touch again; echo x > /tmp/y && cat /tmp/y", { cwd: d.ws }),
        d.ws,
      );
      assert.match(r2.text, /Read-only file system/);
      assert.match(r2.text, /^x$/m);
      await assert.rejects(() => Deno.stat(join(d.ws, "again")));
    } finally {
      await Deno.remove(d.base, { recursive: true });
    }
  },
});

Deno.test({
  name: "a writable root or forbid_read path that became a symlink is refused, not followed",
  ignore: !HAS_BWRAP,
  async fn() {
    const d = await dirs();
    try {
      const cache = join(d.ws, "cache");
      const secret = join(d.ws, "secret");
      await Deno.mkdir(cache);
      await Deno.writeTextFile(secret, "s");
      const launcher = shell("workspace-write", new WriteScope([d.ws, cache], [secret]), d.temp);
      await launcher.launch("true", { cwd: d.ws });
      await Deno.remove(cache);
      await Deno.symlink(d.out, cache);
      await assert.rejects(
        () => launcher.launch("true", { cwd: d.ws }),
        (e: Error) => e instanceof SandboxPathError && /now leads to .*outside/.test(e.message),
      );
      await Deno.remove(cache);
      await Deno.mkdir(cache);
      await Deno.rename(secret, join(d.ws, "moved"));
      await Deno.symlink(join(d.ws, "moved"), secret);
      await assert.rejects(() => launcher.launch("true", { cwd: d.ws }), SandboxPathError);
    } finally {
      await Deno.remove(d.base, { recursive: true });
    }
  },
});

Deno.test({
  name: "without network commands run under the unix-socket filter unless allowed",
  ignore: !HAS_BWRAP,
  async fn() {
    const d = await dirs();
    try {
      const scope = new WriteScope([d.ws, d.temp]);
      const filtered = await shell("workspace-write", scope, d.temp).launch("true", { cwd: d.ws });
      assert.match(filtered.program, /\/bash$/);
      assert.ok(filtered.args.includes("--seccomp"));
      assert.match(filtered.args[1], /lastpipe/);
      const python = "/usr/bin/python3";
      if (await Deno.stat(python).then(() => true, () => false)) {
        const probe = `${python} -c 'import socket\ntry: socket.socket(socket.AF_UNIX)\n` +
          `except OSError as e: print("refused", e.errno)'`;
        const r = await run(
          await shell("workspace-write", scope, d.temp).launch(probe, {
            cwd: d.ws,
          }),
          d.ws,
        );
        assert.match(r.text, /refused 1/);
      }
      for (const opts of [{ allowUnixSockets: true }, { network: true }]) {
        const open = await shell("workspace-write", scope, d.temp, opts).launch("true", {
          cwd: d.ws,
        });
        assert.match(open.program, /\/bwrap$/);
        assert.ok(!open.args.includes("--seccomp"), JSON.stringify(opts));
      }
    } finally {
      await Deno.remove(d.base, { recursive: true });
    }
  },
});

Deno.test({
  name: "control files are mounted read-only and a created one is removed when the command ends",
  ignore: !HAS_BWRAP,
  async fn() {
    const d = await dirs();
    try {
      await Deno.writeTextFile(join(d.ws, "reasonix.toml"), "# mine\n");
      const scope = new WriteScope([d.ws, d.temp]);
      const launcher = shell("workspace-write", scope, d.temp, { controlDirs: [d.ws] });
      const launched = await launcher.launch(
        "echo evil > reasonix.toml; echo '{}' > .mcp.json; echo ok > plain.txt",
        { cwd: d.ws },
      );
      const r = await run(launched, d.ws);
      assert.match(r.text, /reasonix\.toml: Read-only file system/);
      assert.equal(await Deno.readTextFile(join(d.ws, "reasonix.toml")), "# mine\n");
      assert.equal(await Deno.readTextFile(join(d.ws, ".mcp.json")), "{}\n");
      const notes = await launched.settle!();
      assert.equal(notes.length, 1);
      assert.match(notes[0], /\.mcp\.json was created/);
      await assert.rejects(() => Deno.lstat(join(d.ws, ".mcp.json")));
      assert.equal(await Deno.readTextFile(join(d.ws, "plain.txt")), "ok\n");
    } finally {
      await Deno.remove(d.base, { recursive: true });
    }
  },
});
