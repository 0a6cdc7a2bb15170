/**
 * One construction path (spec §3.15): every agent is made by `Host.createAgent`, so the
 * planner, the executor, subagents and the agents behind `serve` and ACP cannot drift from the
 * interactive and headless ones. Only the host module may construct an `Agent`. Unit tests
 * beside the code (the loop's own, a renderer's) may build one over a scripted provider; the
 * end-to-end tests under `tests/` may not.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The one module that may write `new Agent(`. */
const CONSTRUCTS_AGENT = ["core/host/host.ts"];
/** Unit tests beside the code, which may need an `Agent` without a host. */
const UNIT_TESTS = /^(?!tests\/).*_test\.tsx?$/;

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(".") || entry.name === "node_modules" || entry.name === "dist") {
      continue;
    }
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

/** Files that construct an `Agent`, as repository paths. */
export async function agentConstructors(root: string = ROOT): Promise<string[]> {
  const found: string[] = [];
  for await (const file of sources(root)) {
    const rel = relative(root, file);
    if (rel === "tests/boundary_test.ts") continue;
    if (/\bnew\s+Agent\s*\(/.test(await Deno.readTextFile(file))) found.push(rel);
  }
  return found.sort();
}

Deno.test("only the host constructs an Agent", async () => {
  const found = (await agentConstructors()).filter((f) => !UNIT_TESTS.test(f));
  assert.deepEqual(
    found,
    CONSTRUCTS_AGENT,
    "build agents with host.createAgent(spec) (core/host/host.ts), not new Agent(...)",
  );
});

Deno.test("the boundary check notices a second construction site", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "core", "host"), { recursive: true });
    await Deno.mkdir(join(dir, "cli"), { recursive: true });
    await Deno.writeTextFile(join(dir, "core", "host", "host.ts"), "new Agent({});\n");
    await Deno.writeTextFile(join(dir, "cli", "sneaky.ts"), "const a = new  Agent ({});\n");
    await Deno.mkdir(join(dir, "tests"), { recursive: true });
    await Deno.writeTextFile(join(dir, "tests", "e2e_test.ts"), "new Agent({});\n");
    const found = await agentConstructors(dir);
    assert.deepEqual(found, ["cli/sneaky.ts", "core/host/host.ts", "tests/e2e_test.ts"]);
    assert.deepEqual(found.filter((f) => !UNIT_TESTS.test(f)), found, "tests/ is not exempt");
    assert.equal(UNIT_TESTS.test("core/agent/agent_test.ts"), true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * The one subagent primitive (spec §3.15): only these files may start a child, by building or
 * importing a `SubagentRunner`, or asking the host for a `role: "subagent"` agent.
 */
const STARTS_CHILDREN = [
  "core/host/host.ts",
  "core/subagent/runner.ts",
  "core/subagent/task_tool.ts",
];

/** Files that start children outside the runner's path, as repository paths. */
export async function childStarters(root: string = ROOT): Promise<string[]> {
  const found: string[] = [];
  for await (const file of sources(root)) {
    const rel = relative(root, file);
    if (rel === "tests/boundary_test.ts" || UNIT_TESTS.test(rel) || rel.startsWith("tests/")) {
      continue;
    }
    const text = await Deno.readTextFile(file);
    if (
      /\bnew\s+SubagentRunner\s*\(/.test(text) || /\bSubagentRunner\b[^;]*\bfrom\b/.test(text) ||
      /role:\s*"subagent"\s*,/.test(text)
    ) found.push(rel);
  }
  return found.sort();
}

Deno.test("only the subagent runner's path starts children", async () => {
  assert.deepEqual(
    await childStarters(),
    STARTS_CHILDREN,
    "start subagents by compiling a ProfileExecSpec for SubagentRunner.run (core/subagent)",
  );
});

Deno.test("the child boundary notices a second way to start one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "cli"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "cli", "preview.ts"),
      'host.createAgent({ role: "subagent", grant });\n',
    );
    assert.deepEqual(await childStarters(dir), ["cli/preview.ts"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
