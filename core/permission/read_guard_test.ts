import assert from "node:assert/strict";
import { join } from "node:path";
import { WriteScope } from "./confine.ts";
import { Policy, type PolicyCall } from "./policy.ts";
import { findPreset } from "./presets.ts";
import { entryPath, moveViolation, PermissionReadGuard } from "./read_guard.ts";
import { parseRule } from "./rules.ts";

function policy(root: string, deny: string[], ask: string[] = []): Policy {
  return new Policy({
    preset: findPreset("accept-edits")!,
    rules: { allow: [], ask: ask.map((r) => parseRule(r)), deny: deny.map((r) => parseRule(r)) },
    workspaceRoot: root,
    shellSandbox: true,
  });
}

Deno.test("a read deny rule that matches a directory covers what it holds", () => {
  const p = policy("/ws", ["Read(secrets)", "Read(**/.env)"]);
  assert.equal(p.readRuleFor("/ws/secrets/key", "Grep")?.rule, "Read(secrets)");
  assert.equal(p.readRuleFor("/ws/app/.env/nested", "Glob")?.rule, "Read(**/.env)");
  assert.equal(p.readRuleFor("/ws/app/env.txt", "Read"), undefined);
  assert.equal(p.readRuleFor("/elsewhere/secrets/key", "Read"), undefined);
});

Deno.test("family rules bind their own readers; Read rules bind every reader", () => {
  const p = policy("/ws", ["Grep(logs/**)"], ["Read(private/**)"]);
  assert.equal(p.readRuleFor("/ws/logs/a", "Grep")?.decision, "deny");
  assert.equal(p.readRuleFor("/ws/logs/a", "Glob"), undefined);
  assert.deepEqual(p.readRuleFor("/ws/private/a", "LS"), {
    rule: "Read(private/**)",
    decision: "ask",
  });
});

Deno.test("Read deny rules apply to the reads of writers that read", () => {
  const p = policy("/ws", ["Read(**/.env)"]);
  const call: PolicyCall = {
    tool: "edit_file",
    family: "Edit",
    readOnly: false,
    reads: ["/ws/app/.env"],
    writes: ["/ws/app/.env"],
  };
  const verdict = p.decide(call);
  assert.equal(verdict.decision, "deny");
  assert.equal(verdict.rule, "Read(**/.env)");
});

Deno.test("read rule anchors are the literal start of each pattern", () => {
  const p = policy("/ws", ["Read(config/secret.env)", "Read(**/.env)", "Grep(/etc/ssl/*.key)"]);
  assert.deepEqual(p.readRuleAnchors(), [
    { rule: "Read(config/secret.env)", anchor: "/ws/config/secret.env" },
    { rule: "Read(**/.env)", anchor: "/ws" },
    { rule: "Grep(/etc/ssl/*.key)", anchor: "/etc/ssl" },
  ]);
  assert.equal(policy("/ws", ["Edit(src/**)"]).hasReadRules(), false);
});

Deno.test("the read guard reports forbid_read entries and read rules per path", () => {
  const guard = new PermissionReadGuard(
    policy("/ws", ["Read(**/.env)"]),
    new WriteScope(["/ws"], ["/ws/config/secret.env", "/home/u/.ssh"]),
  );
  assert.match(guard.blocked("/ws/config/secret.env", "Grep")!, /forbid_read/);
  assert.match(guard.blocked("/home/u/.ssh/id_rsa", "LS")!, /forbid_read/);
  assert.equal(guard.blocked("/ws/app/.env", "Glob"), 'deny rule "Read(**/.env)"');
  assert.equal(guard.blocked("/ws/config/other.env", "Read"), undefined);
});

async function tree(): Promise<{ base: string; ws: string }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-move-" }));
  const ws = join(base, "ws");
  for (const f of ["app/.env", "app/main.ts", "config/secret.env", "top/config/secret.env"]) {
    await Deno.mkdir(join(ws, f, ".."), { recursive: true });
    await Deno.writeTextFile(join(ws, f), "x");
  }
  await Deno.symlink("config", join(ws, "link"));
  return { base, ws };
}

Deno.test("a move may not carry a protected path to a name the rules do not cover", async () => {
  const { base, ws } = await tree();
  try {
    const scope = new WriteScope([ws], [join(ws, "config/secret.env")]);
    const check = async (deny: string[], from: string, to: string) =>
      await moveViolation({
        from: await entryPath(from, ws),
        to: await entryPath(to, ws),
        policy: policy(ws, deny),
        scope,
      });
    // forbid_read: the entry, a directory above it, never at any new name.
    assert.equal((await check([], "config", "c2"))?.kind, "forbid_read");
    assert.equal((await check([], "config/secret.env", "open.txt"))?.kind, "forbid_read");
    assert.equal(await check([], "top", "t2"), undefined);
    // A symlink is renamed, not what it points at.
    assert.equal(await check([], "link", "link2"), undefined);
    // A rule anchored at or below the moved directory.
    const anchored = await check(["Read(app/.env)"], "app", "app2");
    assert.deepEqual(anchored, {
      path: join(ws, "app/.env"),
      rule: "Read(app/.env)",
      kind: "anchor",
    });
    // A rule that matches anywhere: a tree keeps it when the file keeps its name.
    assert.equal(await check(["Read(**/.env)"], "app", "app2"), undefined);
    assert.equal(await check(["Read(**/.env)"], "app/.env", "lib/.env"), undefined);
    const renamed = await check(["Read(**/.env)"], "app/.env", "app/env.txt");
    assert.equal(renamed?.kind, "tree");
    assert.equal(renamed?.rule, "Read(**/.env)");
    // A deny rule is not traded for a weaker ask rule at the destination.
    const weaker = await moveViolation({
      from: join(ws, "app/.env"),
      to: join(ws, "drafts/.env"),
      policy: policy(ws, ["Read(app/**/.env)"], ["Read(drafts/**)"]),
      scope,
    });
    assert.equal(weaker?.kind, "tree");
    // Trees too large to check are refused while read rules apply.
    const large = await moveViolation({
      from: join(ws, "top"),
      to: join(ws, "t2"),
      policy: policy(ws, ["Read(**/.env)"]),
      scope: new WriteScope([ws]),
      limit: 2,
    });
    assert.equal(large?.kind, "too_large");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
