import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { directShell, findTrustedProgram } from "./shell.ts";

Deno.test("directShell runs commands with an absolute bash -c and no sandbox", async () => {
  const argv = await directShell.launch("echo hi | wc -c", { cwd: "/tmp" });
  assert.deepEqual(argv.args, ["-c", "echo hi | wc -c"]);
  assert.match(argv.program, /^\/.*\/bash$/);
  const out = await new Deno.Command(argv.program, { args: argv.args, stdout: "piped" }).output();
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "3");
});

/** A scratch tree: a trusted bin, a workspace with its own bin, and a link into it. */
async function tree() {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-path-" }));
  const dirs = {
    base,
    trusted: join(base, "usr/bin"),
    ws: join(base, "ws"),
    wsBin: join(base, "ws/node_modules/.bin"),
    link: join(base, "opt-bin"),
  };
  for (const d of [dirs.trusted, dirs.wsBin]) await Deno.mkdir(d, { recursive: true });
  await Deno.symlink(dirs.wsBin, dirs.link);
  for (const dir of [dirs.trusted, dirs.wsBin]) {
    await Deno.writeTextFile(join(dir, "tool"), "#!/bin/sh\n");
    await Deno.chmod(join(dir, "tool"), 0o755);
  }
  return dirs;
}

Deno.test({
  name: "findTrustedProgram skips relative entries and entries in or linking into the workspace",
  ignore: Deno.build.os === "windows",
  async fn() {
    const t = await tree();
    try {
      const untrusted = [t.ws];
      const find = (...entries: string[]) =>
        findTrustedProgram("tool", { path: entries.join(":"), untrusted });
      assert.equal(await find(t.trusted), join(t.trusted, "tool"));
      for (const first of ["", ".", "node_modules/.bin", relative(Deno.cwd(), t.wsBin)]) {
        assert.equal(await find(first, t.trusted), join(t.trusted, "tool"), `entry "${first}"`);
      }
      assert.equal(await find(t.wsBin, t.trusted), join(t.trusted, "tool"));
      assert.equal(await find(t.link, t.trusted), join(t.trusted, "tool"));
      assert.equal(await find(t.wsBin), undefined);
      // Without untrusted directories only relative entries are skipped.
      assert.equal(
        await findTrustedProgram("tool", { path: `${t.wsBin}:${t.trusted}` }),
        join(t.wsBin, "tool"),
      );
    } finally {
      await Deno.remove(t.base, { recursive: true });
    }
  },
});

Deno.test({
  name: "findTrustedProgram skips a program that links into an untrusted directory",
  ignore: Deno.build.os === "windows",
  async fn() {
    const t = await tree();
    try {
      const bin = join(t.base, "bin");
      await Deno.mkdir(bin);
      await Deno.symlink(join(t.wsBin, "tool"), join(bin, "tool"));
      assert.equal(
        await findTrustedProgram("tool", { path: `${bin}:${t.trusted}`, untrusted: [t.ws] }),
        join(t.trusted, "tool"),
      );
      // A link to a trusted program keeps the name it was found under.
      await Deno.remove(join(bin, "tool"));
      await Deno.symlink(join(t.trusted, "tool"), join(bin, "tool"));
      assert.equal(
        await findTrustedProgram("tool", { path: `${bin}:${t.trusted}`, untrusted: [t.ws] }),
        join(bin, "tool"),
      );
      // Not executable: not a program.
      await Deno.chmod(join(t.trusted, "tool"), 0o644);
      assert.equal(await findTrustedProgram("tool", { path: t.trusted }), undefined);
    } finally {
      await Deno.remove(t.base, { recursive: true });
    }
  },
});
