import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { nextSessionMode, SESSION_MODES, setupPermissions } from "./mod.ts";

const PERMS = { mode: "ask", allow: [], ask: [], deny: [] };

async function permissionsIn(base: string, mode: string) {
  const ws = join(base, "ws");
  const temp = join(base, "temp");
  await Deno.mkdir(ws, { recursive: true });
  await Deno.mkdir(temp, { recursive: true });
  return await setupPermissions({
    permissions: { ...PERMS, mode },
    sandbox: { allow_write: [], forbid_read: [] },
    workspaceRoot: ws,
    tempDir: temp,
    env: { HOME: join(base, "home"), PATH: Deno.env.get("PATH") },
    os: "linux",
    // The launcher only builds its command line here; nothing is started.
    which: (name) => Promise.resolve(`/usr/bin/${name}`),
  });
}

Deno.test("a session moves between ask, accept-edits and auto, in that cycle", () => {
  assert.deepEqual(SESSION_MODES, ["ask", "accept-edits", "auto"]);
  assert.deepEqual(SESSION_MODES.map(nextSessionMode), ["accept-edits", "auto", "ask"]);
  assert.equal(nextSessionMode("yolo"), undefined);
  assert.equal(nextSessionMode("read-only"), undefined);
});

Deno.test("setMode changes the policy's answers and bash's network for later calls", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-mode-" }));
  try {
    const p = await permissionsIn(base, "ask");
    const edit = {
      tool: "edit_file",
      family: "Edit",
      readOnly: false,
      reads: [],
      writes: [join(base, "ws", "a.ts")],
    };
    assert.equal(p.policy.decide(edit).decision, "ask");
    assert.equal(p.setMode("acceptEdits").name, "accept-edits");
    assert.equal(p.preset.name, "accept-edits");
    assert.equal(p.gate.preset, "accept-edits");
    assert.equal(p.policy.decide(edit).decision, "allow");

    const launchArgs = async () => {
      // A probe would start bwrap; an unreachable program makes it fail before.
      const launched = await p.shell.launch("true", { cwd: join(base, "ws") }).catch((e) => e);
      return launched instanceof Error ? launched.message : launched.args.join(" ");
    };
    const before = await launchArgs();
    p.setMode("auto");
    const after = await launchArgs();
    assert.doesNotMatch(before, /--unshare-net/);
    assert.match(after, /--unshare-net|auto permission mode/);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("setMode refuses yolo and read-only, and leaving them, and changes nothing", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-mode-" }));
  try {
    const p = await permissionsIn(base, "ask");
    for (const mode of ["yolo", "read-only"]) {
      assert.throws(
        () => p.setMode(mode),
        (e: Error) =>
          e instanceof ConfigError && /cannot switch the permission mode/.test(e.message),
      );
      assert.equal(p.preset.name, "ask");
    }
    assert.throws(() => p.setMode("careful"), ConfigError);
    const yolo = await permissionsIn(join(base, "y"), "yolo");
    assert.throws(() => yolo.setMode("ask"), ConfigError);
    assert.equal(yolo.preset.name, "yolo");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
