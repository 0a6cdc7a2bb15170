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
