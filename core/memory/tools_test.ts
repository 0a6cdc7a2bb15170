import assert from "node:assert/strict";
import { join } from "node:path";
import type { Tool, ToolContext } from "../../tools/types.ts";
import { FactStore } from "./facts.ts";
import { looksSensitive, memoryTools } from "./tools.ts";

const ctx = {} as ToolContext;

async function tools(owner = true) {
  const root = await Deno.makeTempDir();
  const store = new FactStore({ projectDir: join(root, "p"), globalDir: join(root, "g") });
  const [memory, remember, forget] = memoryTools(store, { owner });
  return { memory, remember, forget, store, cleanup: () => Deno.remove(root, { recursive: true }) };
}

function call(tool: Tool, args: unknown) {
  const parsed = tool.parse!(args);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return { access: tool.access!(parsed.value), run: () => tool.execute(parsed.value, ctx) };
}

Deno.test("a bounded new project fact is saved without asking; other writes are writers", async () => {
  const t = await tools();
  try {
    assert.equal(
      call(t.remember, { text: "CI uses Node 20", type: "project", scope: "project" }).access
        .readOnly,
      true,
    );
    assert.equal(
      call(t.remember, { text: "likes tabs", type: "user", scope: "project" }).access.readOnly,
      false,
    );
    assert.equal(
      call(t.remember, { text: "x", type: "reference", scope: "global" }).access.readOnly,
      false,
    );
    assert.equal(
      call(t.remember, { text: "y".repeat(700), type: "project", scope: "project" }).access
        .readOnly,
      false,
    );
    assert.equal(
      call(t.remember, {
        text: "a",
        type: "project",
        scope: "project",
        id: "f_aaaaaaaa",
        revision: 1,
      }).access.readOnly,
      false,
    );
    assert.equal(call(t.forget, { id: "f_aaaaaaaa", revision: 1 }).access.readOnly ?? false, false);
  } finally {
    await t.cleanup();
  }
});

Deno.test("a controller that does not own the store never saves without asking", async () => {
  const t = await tools(false);
  try {
    assert.equal(
      call(t.remember, { text: "CI uses Node 20", type: "project", scope: "project" }).access
        .readOnly,
      false,
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("remember, memory and forget work end to end and secrets are refused", async () => {
  const t = await tools();
  try {
    const saved = await call(t.remember, {
      text: "Run deno task ok before commits",
      type: "feedback",
      scope: "project",
    }).run();
    const id = /Remembered (f_\w+)/.exec(saved.content)![1];
    const found = await call(t.memory, { query: "before commits" }).run();
    assert.match(found.content, new RegExp(`${id} r1 project/feedback`));
    const stale = await call(t.forget, { id, revision: 2 }).run();
    assert.equal(stale.isError, true);
    assert.match((await call(t.forget, { id, revision: 1 }).run()).content, /Archived/);
    const secret = await call(t.remember, {
      text: "api_key = sk-abcdefghijklmnopqrstu",
      type: "reference",
      scope: "project",
    }).run();
    assert.equal(secret.isError, true);
    assert.deepEqual(await t.store.list(), []);
  } finally {
    await t.cleanup();
  }
});

Deno.test("looksSensitive catches common secret shapes", () => {
  for (
    const s of [
      "password: hunter2",
      "AKIAABCDEFGHIJKLMNOP",
      "ghp_" + "a".repeat(36),
      "-----BEGIN RSA PRIVATE KEY-----",
    ]
  ) {
    assert.ok(looksSensitive(s), s);
  }
  assert.ok(!looksSensitive("the token bucket algorithm limits rates"));
});

Deno.test("memory lists forgotten facts and revisions and restores one as a writer", async () => {
  const t = await tools();
  try {
    const v1 = await t.store.create({
      text: "lint with deno lint",
      type: "feedback",
      scope: "project",
    });
    await t.store.update(v1.id, 1, { text: "lint with eslint" });
    await t.store.archive(v1.id, 2);
    assert.equal(call(t.memory, { query: "lint" }).access.readOnly, true);
    assert.equal(call(t.memory, { id: v1.id }).access.readOnly, true);
    assert.equal(call(t.memory, { id: v1.id, restore: 1 }).access.readOnly, false);
    assert.equal(call(t.memory, { id: v1.id, restore: 1 }).access.rule, "Memory");

    assert.match((await call(t.memory, { query: "lint" }).run()).content, /No remembered fact/);
    const forgotten = await call(t.memory, { archived: true, query: "lint" }).run();
    assert.match(forgotten.content, new RegExp(`^- \\[${v1.id} r3 project/feedback .*eslint$`));
    assert.match((await call(t.memory, { archived: true }).run()).content, /eslint/);
    const revisions = (await call(t.memory, { id: v1.id }).run()).content.split("\n");
    assert.equal(revisions.length, 3);
    assert.match(revisions[0], / r1 .*deno lint$/);
    assert.match(revisions[2], / r3 .*eslint \(forgotten\)$/);

    const restored = await call(t.memory, { id: v1.id, restore: 1 }).run();
    assert.equal(restored.content, `Restored revision 1 of ${v1.id} as revision 4.`);
    assert.match((await call(t.memory, {}).run()).content, new RegExp(`${v1.id} r4 .*deno lint`));

    const again = await call(t.memory, { id: v1.id, restore: 4 }).run();
    assert.equal(again.isError, true);
    assert.equal(again.code, "invalid_arguments");
    const missing = await call(t.memory, { restore: 1 }).run();
    assert.equal(missing.isError, true);
    const unknown = await call(t.memory, { id: "f_nosuchfact1", restore: 1 }).run();
    assert.equal(unknown.code, "not_found");
  } finally {
    await t.cleanup();
  }
});
