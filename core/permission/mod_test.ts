import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { findPreset, PRESETS, setupPermissions, validatePermissionsConfig } from "./mod.ts";

const PERMS = { mode: "ask", allow: [], ask: [], deny: [] };

Deno.test("an unknown permission mode is a ConfigError listing every preset", () => {
  assert.throws(
    () => validatePermissionsConfig({ ...PERMS, mode: "careful" }, {}),
    (e: Error) =>
      e instanceof ConfigError && /unknown permission mode "careful"/.test(e.message) &&
      PRESETS.every((p) => e.message.includes(p.name)),
  );
});

Deno.test("a malformed rule is a ConfigError naming the list and the rule", () => {
  assert.throws(
    () => validatePermissionsConfig({ ...PERMS, deny: ["Bash(rm -rf; x:*)"] }, {}),
    (e: Error) =>
      e instanceof ConfigError && /\[permissions\]\.deny \(or --deny\)/.test(e.message) &&
      e.message.includes("Bash(rm -rf; x:*)"),
  );
});

Deno.test("Claude Code and Codex spellings select the same presets", () => {
  assert.equal(findPreset("default")?.name, "ask");
  assert.equal(findPreset("acceptEdits")?.name, "accept-edits");
  assert.equal(findPreset("bypassPermissions")?.name, "yolo");
  assert.equal(findPreset("danger-full-access")?.name, "yolo");
  assert.equal(findPreset("workspace-write")?.name, "auto");
  assert.equal(findPreset("readonly")?.name, "read-only");
});

Deno.test("setup resolves writable roots: workspace, session temp, allow_write (relative and ~)", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-setup-" }));
  try {
    const ws = join(base, "ws");
    const temp = join(base, "temp");
    await Deno.mkdir(ws);
    await Deno.mkdir(temp);
    const p = await setupPermissions({
      permissions: { ...PERMS, mode: "acceptEdits" },
      sandbox: { allow_write: ["../shared", "~/cache"], forbid_read: ["~/.ssh"] },
      workspaceRoot: ws,
      tempDir: temp,
      env: { HOME: join(base, "home") },
    });
    assert.equal(p.preset.name, "accept-edits");
    assert.deepEqual(p.scope.roots(), [ws, temp, join(base, "shared"), join(base, "home/cache")]);
    assert.deepEqual(p.scope.forbidden(), [join(base, "home/.ssh")]);
    // Only the read-only preset locks the process down.
    await p.lockDown();
    assert.equal((await Deno.permissions.query({ name: "write" })).state, "granted");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a writable root of /, the home directory or above it is refused outside yolo", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-setup-" }));
  try {
    const home = join(base, "home");
    await Deno.mkdir(join(home, "bin"), { recursive: true });
    await Deno.symlink("..", join(home, "bin/up"));
    const setup = (mode: string, allow_write: string[]) =>
      setupPermissions({
        permissions: { ...PERMS, mode },
        sandbox: {
          allow_write,
          forbid_read: [],
          allow_write_at: allow_write.map(() => ({
            file: "/u/config.toml",
            line: 7,
            trusted: true,
          })),
        },
        workspaceRoot: join(base, "home/bin"),
        tempDir: join(base, "temp"),
        env: { HOME: home },
      });
    for (const entry of ["~", "/", base, "~/bin/up", "~/bin/../.."]) {
      await assert.rejects(
        () => setup("auto", [entry]),
        (e: Error) =>
          e instanceof ConfigError && e.file === "/u/config.toml" && e.line === 7 &&
          e.message.includes(`[sandbox].allow_write "${entry}"`) &&
          /narrower directory/.test(e.message) && /yolo/.test(e.message),
        entry,
      );
    }
    // ask and accept-edits write there too (after asking); read-only and yolo do not confine.
    await assert.rejects(() => setup("ask", ["~"]), ConfigError);
    await setup("read-only", ["~"]);
    await setup("yolo", ["/"]);
    await setup("auto", ["~/bin/cache", join(base, "elsewhere")]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a configured workspace_root of the home directory is refused outside yolo", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-setup-" }));
  try {
    const setup = (workspace_root?: string) =>
      setupPermissions({
        permissions: { ...PERMS, mode: "auto" },
        sandbox: { workspace_root, allow_write: [], forbid_read: [] },
        workspaceRoot: home,
        tempDir: join(home, ".tmp"),
        env: { HOME: home },
      });
    await assert.rejects(() => setup("~"), /workspace_root "~" resolves to .*your home directory/);
    // Started in the home directory without configuring it: the user's own choice.
    await setup(undefined);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name: "setup resolves bash, setsid and bwrap once, never from the workspace or a relative PATH",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-setup-" }));
    try {
      const ws = join(base, "ws");
      const bin = join(ws, "bin");
      await Deno.mkdir(bin, { recursive: true });
      for (const name of ["bash", "setsid", "bwrap"]) {
        await Deno.writeTextFile(join(bin, name), "#!/bin/sh\n");
        await Deno.chmod(join(bin, name), 0o755);
      }
      const p = await setupPermissions({
        permissions: { ...PERMS, mode: "auto" },
        sandbox: { allow_write: [], forbid_read: [] },
        workspaceRoot: ws,
        tempDir: join(base, "temp"),
        env: { HOME: base, PATH: `bin:.:${bin}:/usr/bin:/bin` },
      });
      assert.equal(p.shell.programs?.bash, "/usr/bin/bash");
      assert.equal(p.shell.programs?.setsid, "/usr/bin/setsid");
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});

Deno.test("preflight checks the sandbox only where commands run without asking", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-preflight-" }));
  try {
    const open = (mode: string, allow: string[] = []) =>
      setupPermissions({
        permissions: { ...PERMS, mode, allow },
        sandbox: { allow_write: [], forbid_read: [] },
        workspaceRoot: base,
        tempDir: base,
        env: {},
        os: "linux",
        // No bwrap anywhere: only bash is found.
        which: (name) => Promise.resolve(name === "bash" ? "/bin/bash" : undefined),
      });
    const missing = (e: Error) =>
      e instanceof ConfigError && /bubblewrap \(bwrap\) is not installed/.test(e.message);
    await assert.rejects(async () => await (await open("auto")).preflight(), missing);
    await assert.rejects(async () => await (await open("read-only")).preflight(), missing);
    // An allow rule lets some commands run unasked in ask mode, so it needs the sandbox too.
    await assert.rejects(
      async () => await (await open("ask", ["Bash(npm test)"])).preflight(),
      missing,
    );
    await (await open("ask")).preflight();
    await (await open("accept-edits", ["Edit"])).preflight();
    await (await open("yolo")).preflight();
    // Windows has no shell sandbox: auto runs commands as the user (documented), read-only
    // cannot run them at all, exactly as a launch would decide.
    const windows = (mode: string) =>
      setupPermissions({
        permissions: { ...PERMS, mode },
        sandbox: { allow_write: [], forbid_read: [] },
        workspaceRoot: base,
        tempDir: base,
        env: {},
        os: "windows",
        which: (name) => Promise.resolve(name === "bash" ? "/bin/bash" : undefined),
      });
    await (await windows("auto")).preflight();
    await assert.rejects(
      async () => await (await windows("read-only")).preflight(),
      (e: Error) => e instanceof ConfigError && /no shell sandbox on windows/.test(e.message),
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
