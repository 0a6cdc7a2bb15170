/**
 * The fast path of `reasonix run` reads a command line exactly as the command tree does, or
 * leaves it to the tree.
 */
import assert from "node:assert/strict";
import { configureTree, CONSOLE_IO, execute } from "./execute.ts";
import { readRunArgs, runFast } from "./fast_run.ts";
import { optionFlags } from "./option_spec.ts";
import { buildProgram } from "./program.ts";
import { PERMISSION_OPTIONS } from "../permission_flags.ts";
import { RUN_OPTIONS } from "./run_spec.ts";

/** What commander hands `run`'s action for `argv`, or undefined when it does not reach it. */
async function viaTree(argv: string[]): Promise<{ words: string[]; raw: object } | undefined> {
  const quiet = { out: () => {}, err: () => {} };
  const program = buildProgram({ io: quiet });
  configureTree(program, quiet);
  let seen: { words: string[]; raw: object } | undefined;
  program.commands.find((c) => c.name() === "run")!.action((words: string[], raw: object) => {
    seen = { words, raw: { ...raw } };
  });
  await execute(program, argv, quiet);
  return seen;
}

const ACCEPTED: string[][] = [
  ["run", "hello world"],
  ["run", "fix", "the", "bug", "--json"],
  ["--cwd", ".", "run", "-m", "fake/x", "task"],
  ["--cwd=.", "run", "--model=fake", "task"],
  ["run", "--max-turns", "3", "--max-cost=0.5", "--max-tokens", "100", "--timeout", "10m", "t"],
  ["run", "--output-format", "stream-json", "--input-format=stream-json"],
  ["run", "--image", "a.png", "--image=b.png", "look"],
  ["run", "--allow", "Bash(ls)", "--allow", "Read", "--deny", "Bash(rm:*)", "t"],
  ["run", "--permission-mode", "auto", "--trust-project", "t"],
  ["run", "-c", "again"],
  ["run", "-r", "abc", "again"],
  ["run", "--", "--json", "-x"],
  ["run", "-", "t"],
  ["run", "--model", "--json", "t"],
  ["run", "--model", "a", "--model", "b", "t"],
  ["run", "--record", "r.jsonl", "t", "--output-format", "json"],
  ["run"],
];

Deno.test("a plain run command line reads the same as the command tree reads it", async () => {
  for (const argv of ACCEPTED) {
    const fast = readRunArgs(argv);
    assert.ok(fast, `the fast path takes ${argv.join(" ")}`);
    const tree = await viaTree(argv);
    assert.ok(tree, `the tree runs ${argv.join(" ")}`);
    assert.deepEqual(
      { words: fast.words, raw: fast.raw },
      {
        words: tree.words,
        raw: Object.fromEntries(Object.entries(tree.raw).filter(([, v]) => v !== undefined)),
      },
      argv.join(" "),
    );
  }
});

Deno.test("help, typos, bad values and everything but run go to the command tree", () => {
  const rejected: string[][] = [
    [],
    ["run", "--help"],
    ["run", "-h"],
    ["run", "--jsn", "t"],
    ["run", "-cr", "abc"],
    ["run", "-mfake", "t"],
    ["run", "--output-format", "xml", "t"],
    ["run", "-c", "-r", "abc", "t"],
    ["run", "--json=1", "t"],
    ["run", "-5"],
    ["run", "--model"],
    ["run", "--cwd", ".", "t"],
    ["-m", "x", "run", "t"],
    ["--cwd"],
    ["--cwd", ".", "sessions"],
    ["help", "run"],
    ["mcp", "list"],
    ["sessions", "run"],
  ];
  for (const argv of rejected) assert.equal(readRunArgs(argv), undefined, argv.join(" "));
});

Deno.test("the run command of the tree has exactly the options the fast path reads", () => {
  const run = buildProgram({ io: CONSOLE_IO }).commands.find((c) => c.name() === "run")!;
  const tree = run.options.map((o) => o.flags).filter((flags) => flags !== "-h, --help");
  const specs = [...RUN_OPTIONS, ...PERMISSION_OPTIONS];
  assert.deepEqual(tree, specs.map((s) => s.flags));
  for (const spec of specs) {
    const option = run.options.find((o) => o.flags === spec.flags)!;
    assert.equal(option.attributeName(), optionFlags(spec).key, spec.flags);
    assert.equal(option.required, optionFlags(spec).takesValue, spec.flags);
  }
});

Deno.test("a usage error leaves the working directory as it was, for the tree to report", async () => {
  const before = Deno.cwd();
  const dir = await Deno.makeTempDir();
  try {
    assert.equal(await runFast(["--cwd", dir, "run", "--max-turns", "0", "x"]), undefined);
    assert.equal(Deno.cwd(), before);
    assert.equal(await runFast(["--cwd", `${dir}/missing`, "run", "x"]), undefined);
    assert.equal(Deno.cwd(), before);
  } finally {
    Deno.chdir(before);
    await Deno.remove(dir, { recursive: true });
  }
});
