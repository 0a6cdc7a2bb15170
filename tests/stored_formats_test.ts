/**
 * Every stored format of today, from the files in tests/fixtures/formats, read back by this
 * version; and a file of a newer format refused with a message naming the version it needs,
 * never written over.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import "../providers/builtin_kinds.ts";
import { declarationHash, loadConfig, TrustStore } from "../core/config/mod.ts";
import { FACT_FORMAT_VERSION, FactStore, MemoryError } from "../core/memory/mod.ts";
import {
  LearnedLimits,
  limitKey,
  openSession,
  readTranscript,
  TRANSCRIPT_VERSION,
} from "../core/store/mod.ts";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "formats");
const fixture = (name: string) => join(FIXTURES, name);

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-formats-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The fixture's text with its top-level format version set to `version`. */
async function bumped(name: string, key: string, version: number): Promise<string> {
  const text = await Deno.readTextFile(fixture(name));
  const out = text.replace(new RegExp(`"${key}": ?1\\b`), `"${key}":${version}`);
  assert.notEqual(out, text, `no ${key} in ${name}`);
  return out;
}

const SESSION_ID = "3f0c9a52-6a1e-4c55-9d7e-0b8f1f6c2a11";

Deno.test("a v1 transcript is read and resumed", async () => {
  await withDir(async (dir) => {
    const path = join(dir, `${SESSION_ID}.jsonl`);
    await Deno.copyFile(fixture("transcript_v1.jsonl"), path);
    const loaded = await readTranscript(path);
    assert.equal(loaded?.version, 1);
    assert.equal(loaded?.meta.id, SESSION_ID);
    assert.equal(loaded?.meta.model, "deepseek/deepseek-chat");
    assert.deepEqual(loaded?.messages.map((m) => m.role), [
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    assert.equal(loaded?.skippedLines, 0);
    const opened = await openSession({
      dir,
      workspace: "/work/project",
      model: "deepseek/deepseek-chat",
      resume: SESSION_ID,
    });
    try {
      assert.equal(opened.resumed, true);
      assert.equal(opened.session.messages.length, 4);
    } finally {
      opened.writer.close();
    }
  });
});

Deno.test("a transcript of a newer format is refused, naming the version", async () => {
  await withDir(async (dir) => {
    const path = join(dir, `${SESSION_ID}.jsonl`);
    const newer = TRANSCRIPT_VERSION + 1;
    await Deno.writeTextFile(path, await bumped("transcript_v1.jsonl", "v", newer));
    const before = await Deno.readTextFile(path);
    await assert.rejects(
      openSession({ dir, workspace: "/work/project", model: "m", resume: SESSION_ID }),
      new RegExp(`newer Reasonix \\(transcript format v${newer}, this one writes v1\\)`),
    );
    assert.equal(await Deno.readTextFile(path), before);
  });
});

Deno.test("a v1 trust store is read, and its grants still match their declarations", async () => {
  await withDir(async (home) => {
    const store = new TrustStore(home);
    await Deno.copyFile(fixture("trust_v1.json"), store.path);
    await Deno.chmod(store.path, 0o600);
    const snapshot = await store.read();
    assert.equal(snapshot.warning, undefined);
    assert.deepEqual(snapshot.workspaces.map((w) => w.workspace), ["/work/project"]);
    const [grant] = snapshot.workspaces[0].grants;
    assert.equal(grant.name, "docs");
    // The hash is of the declaration: a changed hash scheme would void every stored grant.
    assert.equal(
      grant.hash,
      declarationHash("/work/project", {
        kind: "mcp_server",
        name: "docs",
        file: "/work/project/.mcp.json",
        content: { command: "docs-server", args: [] },
      }),
    );
  });
});

Deno.test("a trust store of a newer format is refused, naming the version, and kept", async () => {
  await withDir(async (home) => {
    const store = new TrustStore(home);
    await Deno.writeTextFile(store.path, await bumped("trust_v1.json", "version", 2), {
      mode: 0o600,
    });
    const before = await Deno.readTextFile(store.path);
    const snapshot = await store.read();
    assert.deepEqual(snapshot.workspaces, []);
    assert.match(
      snapshot.warning ?? "",
      /written by a newer Reasonix \(trust format v2; this one reads v1\)/,
    );
    assert.match(snapshot.warning ?? "", /update Reasonix to a version that reads trust format v2/);
    await assert.rejects(store.revoke("/work/project"), /trust format v2/);
    assert.equal(await Deno.readTextFile(store.path), before);
  });
});

const LIMIT_KEY = limitKey({
  provider: "deepseek",
  endpoint: "https://api.deepseek.com",
  model: "deepseek-chat",
});

Deno.test("v1 learned limits are read; a newer file is neither read nor written over", async () => {
  await withDir(async (home) => {
    const path = join(home, "learned_limits.json");
    await Deno.copyFile(fixture("learned_limits_v1.json"), path);
    assert.equal(new LearnedLimits(home).contextWindow(LIMIT_KEY), 65536);

    await Deno.writeTextFile(path, await bumped("learned_limits_v1.json", "version", 2));
    const before = await Deno.readTextFile(path);
    const limits = new LearnedLimits(home);
    assert.equal(limits.contextWindow(LIMIT_KEY), undefined);
    await limits.learnContextWindow(LIMIT_KEY, 1000);
    assert.equal(limits.contextWindow(LIMIT_KEY), 1000, "kept for this process");
    assert.equal(await Deno.readTextFile(path), before);
  });
});

async function factDirs(home: string): Promise<{ projectDir: string; globalDir: string }> {
  const projectDir = join(home, "memory", "projects", "p-000000000000");
  const globalDir = join(home, "memory", "global");
  await Deno.mkdir(projectDir, { recursive: true });
  await Deno.mkdir(globalDir, { recursive: true });
  return { projectDir, globalDir };
}

Deno.test("memory facts without a version and of v1 are read, and updated as v1", async () => {
  await withDir(async (home) => {
    const dirs = await factDirs(home);
    await Deno.copyFile(
      fixture("f_k3j9x0a1b2c3.json"),
      join(dirs.projectDir, "f_k3j9x0a1b2c3.json"),
    );
    await Deno.copyFile(
      fixture("f_m4n5p6q7r8s9.json"),
      join(dirs.globalDir, "f_m4n5p6q7r8s9.json"),
    );
    const store = new FactStore(dirs);
    const facts = await store.list();
    assert.deepEqual(facts.map((f) => [f.id, f.revision, f.text]).sort(), [
      ["f_k3j9x0a1b2c3", 2, "Tests run with deno task test"],
      ["f_m4n5p6q7r8s9", 1, "Prefers answers in English"],
    ]);
    assert.ok(facts.every((f) => !("v" in f)), "the format version leaked into the fact");
    const updated = await store.update("f_k3j9x0a1b2c3", 2, { text: "Tests: deno task test" });
    assert.equal(updated.revision, 3);
    const onDisk = JSON.parse(
      await Deno.readTextFile(join(dirs.projectDir, "f_k3j9x0a1b2c3.json")),
    );
    assert.equal(onDisk.v, FACT_FORMAT_VERSION);
    assert.deepEqual((await store.revisions("f_k3j9x0a1b2c3")).map((f) => f.revision), [2, 3]);
  });
});

Deno.test("a memory fact of a newer format is refused, naming the version, and kept", async () => {
  await withDir(async (home) => {
    const dirs = await factDirs(home);
    const path = join(dirs.globalDir, "f_m4n5p6q7r8s9.json");
    await Deno.writeTextFile(path, await bumped("f_m4n5p6q7r8s9.json", "v", 2));
    const before = await Deno.readTextFile(path);
    const store = new FactStore(dirs);
    await assert.rejects(
      store.update("f_m4n5p6q7r8s9", 1, { text: "changed" }),
      (e: unknown) =>
        e instanceof MemoryError &&
        /written by a newer Reasonix \(fact format v2; this one reads v1\)/.test(e.message),
    );
    await assert.rejects(store.restore("f_m4n5p6q7r8s9", 1), /fact format v2/);
    assert.equal(await Deno.readTextFile(path), before);
  });
});

Deno.test("the documented user config.toml of today loads without a warning", async () => {
  await withDir(async (home) => {
    await Deno.copyFile(fixture("config.toml"), join(home, "config.toml"));
    const config = await loadConfig({ cwd: home, env: {}, home });
    assert.deepEqual(config.warnings, []);
    assert.equal(config.default_model, "gateway/local-model");
    assert.equal(config.agent.max_turns, 40);
    assert.ok(config.providers.some((p) => p.name === "gateway"));
  });
});
