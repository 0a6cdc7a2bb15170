import assert from "node:assert/strict";
import { join } from "node:path";
import { startUiSession } from "../../tests/support/ui_session.ts";
import { localWorkspace } from "../../tools/workspace/mod.ts";
import { agentsMarkdown, runInit, scanRepository } from "./init_command.ts";

/** A sample repository with one of each kind of build file. */
const SAMPLE: Record<string, string> = {
  "deno.json":
    '{\n  // comments are allowed\n  "tasks": { "test": "deno test", "fmt": "deno fmt" }\n}\n',
  "package.json": JSON.stringify({ scripts: { build: "tsc", lint: "eslint .", dev: "vite" } }),
  "pnpm-lock.yaml": "lockfileVersion: 9\n",
  "Makefile": "CC := gcc\n.PHONY: all check\nall: main\n\tgcc main.c\ncheck:\n\t./run-tests\n",
  "Cargo.toml": '[package]\nname = "demo"\n',
  "go.mod": "module example.com/demo\n\ngo 1.22\n",
  "pyproject.toml": '[project]\nname = "demo"\n[project.scripts]\ndemo = "demo:main"\n' +
    "[tool.pytest.ini_options]\n[tool.ruff]\n",
  "uv.lock": "",
  "src/main.ts": "",
  "src/util.ts": "",
  "src/lib.rs": "",
  "tool.py": "",
  "node_modules/dep/index.js": "",
  "CLAUDE.md": "# Notes\n",
};

async function sampleRepo(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-init-" }));
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, name, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, name), text);
  }
  return root;
}

Deno.test("/init finds languages and the build, test and lint commands of every build file", async () => {
  const root = await sampleRepo(SAMPLE);
  try {
    const facts = await scanRepository(root, { workspace: localWorkspace() });
    assert.deepEqual(facts.languages, [
      { name: "TypeScript", files: 2 },
      { name: "Python", files: 1 },
      { name: "Rust", files: 1 },
    ], "node_modules is not counted");
    assert.deepEqual(facts.manifests, [
      "deno.json",
      "package.json",
      "Makefile",
      "Cargo.toml",
      "go.mod",
      "pyproject.toml",
    ]);
    const runs = facts.commands.map((c) => `${c.kind}: ${c.run}`);
    for (
      const expected of [
        "test: deno task test",
        "format: deno task fmt",
        "build: pnpm build",
        "lint: pnpm lint",
        "run: pnpm dev",
        "other: make all",
        "other: make check",
        "build: cargo build",
        "test: cargo test",
        "test: go test ./...",
        "test: uv run pytest",
        "lint: uv run ruff check .",
        "other: uv run demo",
      ]
    ) assert.ok(runs.includes(expected), `${expected} in\n${runs.join("\n")}`);
    assert.ok(!runs.some((r) => /make (CC|\.PHONY)/.test(r)), runs.join("\n"));
    assert.deepEqual(facts.instructionFiles, ["CLAUDE.md"]);

    const text = agentsMarkdown(facts, { name: "demo" });
    assert.match(text, /^# demo: notes for coding agents/);
    assert.match(text, /Languages: TypeScript \(2 files\), Python \(1 file\), Rust \(1 file\)\./);
    assert.match(
      text,
      /### Test\n\n- `deno task test` \(deno\.json\)\n- `cargo test` \(Cargo\.toml\)/,
    );
    assert.equal(
      agentsMarkdown(facts, { name: "demo" }),
      text,
      "the same repository, the same text",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("/init writes AGENTS.md, and replaces an existing one only when told", async () => {
  const root = await sampleRepo({ "go.mod": "module x\n", "main.go": "" });
  const workspace = localWorkspace();
  try {
    const first = await runInit({ root, workspace });
    assert.equal(first.kind, "written");
    const written = await Deno.readTextFile(join(root, "AGENTS.md"));
    assert.match(written, /`go test \.\/\.\.\.` \(go\.mod\)/);

    await Deno.writeTextFile(join(root, "AGENTS.md"), "mine\n");
    assert.deepEqual(await runInit({ root, workspace }), {
      kind: "exists",
      path: join(root, "AGENTS.md"),
    });
    assert.equal(await Deno.readTextFile(join(root, "AGENTS.md")), "mine\n");
    const replaced = await runInit({ root, workspace, replace: true });
    assert.ok(replaced.kind === "written" && replaced.replaced);
    assert.equal(await Deno.readTextFile(join(root, "AGENTS.md")), written);

    await Deno.remove(join(root, "AGENTS.md"));
    const draft = await runInit({ root, workspace, readOnly: true });
    assert.equal(draft.kind, "read_only");
    await assert.rejects(Deno.stat(join(root, "AGENTS.md")), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("/init in a session asks before replacing AGENTS.md", async () => {
  const s = await startUiSession({
    script: [],
    files: { "package.json": JSON.stringify({ scripts: { test: "node --test" } }) },
  });
  try {
    await s.controller.submit("/init");
    const agents = join(s.repo, "AGENTS.md");
    assert.match(await Deno.readTextFile(agents), /`npm run test` \(package\.json\)/);
    assert.match(s.lines().at(-1) ?? "", /^info: Wrote .*AGENTS\.md \(1 command\)\. Edit it/);
    assert.equal(s.fake.requests.length, 0, "nothing goes to the model");

    await Deno.writeTextFile(agents, "hand-written\n");
    await s.controller.submit("/init");
    const picker = s.controller.getSnapshot().overlay;
    assert.ok(picker?.kind === "picker" && picker.purpose === "init");
    assert.equal(picker.items[picker.selected].value, "keep", "keeping is the default");
    s.press({ return: true });
    await s.controller.idle();
    assert.equal(await Deno.readTextFile(agents), "hand-written\n");

    await s.controller.submit("/init");
    s.press({ downArrow: true });
    s.press({ return: true });
    await s.until(() => s.lines().some((l) => /^info: Replaced /.test(l)), "replaced");
    assert.match(await Deno.readTextFile(agents), /npm run test/);
  } finally {
    await s.close();
  }
});
