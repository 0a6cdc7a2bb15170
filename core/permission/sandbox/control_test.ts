import assert from "node:assert/strict";
import { join } from "node:path";
import { isWithin } from "../../../tools/paths.ts";
import { controlPlan, settleGuards } from "./control.ts";

async function workspace(): Promise<{ base: string; ws: string; out: string }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-control-" }));
  const ws = join(base, "ws");
  const out = join(base, "out");
  await Deno.mkdir(join(ws, ".git/hooks"), { recursive: true });
  await Deno.mkdir(out);
  await Deno.writeTextFile(join(ws, ".git/config"), "[core]\n\thooksPath = .husky\n");
  await Deno.writeTextFile(join(ws, "reasonix.toml"), "");
  await Deno.mkdir(join(ws, ".reasonix"));
  return { base, ws, out };
}

Deno.test("present control files are mounted read-only, missing ones and links are guarded", async () => {
  const { base, ws, out } = await workspace();
  try {
    await Deno.writeTextFile(join(out, "shared.env"), "A=1\n");
    await Deno.symlink(join(out, "shared.env"), join(ws, ".env"));
    const plan = await controlPlan([ws], (p) => isWithin(ws, p));
    assert.deepEqual(plan.readOnly.sort(), [
      join(ws, ".git/config"),
      join(ws, ".git/hooks"),
      join(ws, ".reasonix"),
      join(ws, "reasonix.toml"),
    ]);
    assert.deepEqual(
      plan.guards.map((g) => [g.path, g.was.kind]).sort(),
      [
        [join(ws, ".env"), "link"],
        [join(ws, ".git/commondir"), "missing"],
        // core.hooksPath names a directory that does not exist yet.
        [join(ws, ".husky"), "missing"],
        [join(ws, ".mcp.json"), "missing"],
      ],
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a workspace that is not a repository guards .git itself", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-control-" }));
  try {
    const plan = await controlPlan([base], (p) => isWithin(base, p));
    assert.ok(plan.guards.some((g) => g.path === join(base, ".git") && g.was.kind === "missing"));
    assert.deepEqual(plan.readOnly, []);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("paths outside the writable roots are left alone: they are read-only already", async () => {
  const { base, ws } = await workspace();
  try {
    const plan = await controlPlan([ws], () => false);
    assert.deepEqual(plan, { readOnly: [], guards: [] });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("settling removes created control files and restores changed links", async () => {
  const { base, ws, out } = await workspace();
  try {
    await Deno.symlink(join(out, "a.json"), join(ws, ".mcp.json"));
    const plan = await controlPlan([ws], (p) => isWithin(ws, p));
    // What a command could have done to the guarded paths:
    await Deno.remove(join(ws, ".mcp.json"));
    await Deno.writeTextFile(join(ws, ".mcp.json"), '{"mcpServers":{}}');
    await Deno.mkdir(join(ws, ".husky"));
    await Deno.writeTextFile(join(ws, ".husky/pre-commit"), "evil");
    await Deno.writeTextFile(join(ws, ".git/commondir"), "../evil");
    const notes = await settleGuards(plan.guards, ws);
    assert.equal(await Deno.readLink(join(ws, ".mcp.json")), join(out, "a.json"));
    for (const gone of [".husky", ".git/commondir", ".env"]) {
      assert.equal(await Deno.lstat(join(ws, gone)).catch(() => undefined), undefined, gone);
    }
    assert.equal(notes.length, 3);
    assert.match(notes.join("\n"), /\.mcp\.json was changed by the command and has been restored/);
    assert.match(notes.join("\n"), /\.husky was created by the command and has been removed/);
    // Nothing changed: nothing to say.
    assert.deepEqual(await settleGuards(plan.guards, ws), []);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
