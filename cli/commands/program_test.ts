/**
 * The `reasonix` command tree: `--help` on every command, "did you mean" suggestions, the
 * version flags, the hint for options before a subcommand, and the completion scripts, which
 * real shells must accept.
 */
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { completionScript } from "../completions.ts";
import { EXIT_OK, EXIT_USAGE } from "../exit_codes.ts";
import { DEV_VERSION } from "../version.ts";
import { configureTree, execute } from "./execute.ts";
import { buildProgram } from "./program.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Run {
  code: number;
  out: string;
  err: string;
}

/** Runs `argv` through the whole tree in-process, capturing what it writes. */
async function cli(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
  const program = buildProgram({ io });
  configureTree(program, io);
  const code = await execute(program, argv, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** Runs the real program (`cli/main.ts`) in a child process. */
async function spawn(...argv: string[]): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--config",
      join(ROOT, "deno.json"),
      join(ROOT, "cli/main.ts"),
      ...argv,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, out: text.decode(out.stdout), err: text.decode(out.stderr) };
}

/** Every command path of the tree, the program's included: `[]`, `["mcp"]`, `["mcp", "add"]`… */
function paths(command: Command, prefix: string[] = []): string[][] {
  return [prefix, ...command.commands.flatMap((c) => paths(c, [...prefix, c.name()]))];
}

Deno.test("--help works on every command and subcommand, exit 0, naming the command", async () => {
  const all = paths(buildProgram({ io: { out() {}, err() {} } }));
  // The tree is the one the program parses: these are all there.
  for (const want of ["run", "sessions list", "config compact-ratio", "mcp add", "trust revoke"]) {
    assert.ok(all.some((p) => p.join(" ") === want), want);
  }
  for (const path of all) {
    for (const flag of ["--help", "-h"]) {
      const r = await cli(...path, flag);
      const name = ["reasonix", ...path].join(" ");
      assert.equal(r.code, EXIT_OK, `${name} ${flag}: ${r.err}`);
      assert.match(r.out, new RegExp(`^Usage: ${name.replace(/\W/g, "\\$&")}(\\|\\w+)? `), name);
      assert.equal(r.err, "", name);
    }
  }
  // `help <command>` too, and it is the same text.
  assert.equal((await cli("help", "sessions")).out, (await cli("sessions", "--help")).out);
});

Deno.test("unknown commands and options get a did-you-mean and exit 2", async () => {
  const cases: [string[], RegExp][] = [
    [["--versoin"], /reasonix: unknown option '--versoin'\n\(Did you mean --version\?\)/],
    [["sesions"], /reasonix: unknown command 'sesions'\n\(Did you mean sessions\?\)/],
    [["sessions", "lsit"], /reasonix sessions: unknown command 'lsit'\n\(Did you mean list\?\)/],
    [["mcp", "ad"], /reasonix mcp: unknown command 'ad'\n\(Did you mean add\?\)/],
    [["trust", "grnat"], /reasonix trust: unknown command 'grnat'\n\(Did you mean grant\?\)/],
    [["run", "--jsno", "x"], /reasonix run: unknown option '--jsno'\n\(Did you mean --json\?\)/],
    [["run", "--max-turn", "2", "x"], /\(Did you mean --max-turns\?\)/],
    [["config", "compact-ration"], /\(Did you mean compact-ratio\?\)/],
  ];
  for (const [argv, want] of cases) {
    const r = await cli(...argv);
    assert.equal(r.code, EXIT_USAGE, argv.join(" "));
    assert.match(r.err, want, argv.join(" "));
    assert.equal(r.out, "", argv.join(" "));
  }
  // A task typed without `run` is pointed at `run`.
  assert.match((await cli("fix", "the", "bug")).err, /To run a task: reasonix run "fix the bug"/);
});

Deno.test("bad values and combinations are usage errors with exit 2", async () => {
  const cases: [string[], RegExp][] = [
    [["run", "--output-format", "xml", "x"], /Allowed choices are text, json, stream-json/],
    [["run", "--json", "--output-format", "stream-json", "x"], /--json means --output-format json/],
    [["run", "-c", "-r", "abc", "x"], /'-c, --continue' cannot be used with option '-r, --resume/],
    [["run", "--max-turns", "0", "x"], /--max-turns must be a positive integer, got "0"/],
    [["run", "--timeout", "soon", "x"], /--timeout must be a duration such as 90s/],
    [["completions", "powershell"], /Allowed choices are bash, zsh, fish/],
    [["mcp", "add", "-e", "NOEQUALS", "n", "echo"], /--env needs KEY=VALUE, got "NOEQUALS"/],
    [["sessions"], /Usage: reasonix sessions/],
    [["--cwd"], /option '--cwd <dir>' argument missing/],
  ];
  for (const [argv, want] of cases) {
    const r = await cli(...argv);
    assert.equal(r.code, EXIT_USAGE, `${argv.join(" ")}: ${r.err}`);
    assert.match(r.err, want, argv.join(" "));
  }
});

Deno.test("interactive options before a subcommand say where they belong", async () => {
  const r = await cli("-m", "fake", "--allow", "Bash(ls)", "run", "hi");
  assert.equal(r.code, EXIT_USAGE);
  assert.match(r.err, /-m fake --allow Bash\(ls\) must come after `run`: reasonix run -m fake/);
});

Deno.test("-v and --version print the version, before and after the command tree loads", async () => {
  for (const argv of [["-v"], ["--version"], ["--cwd", ".", "-v"], ["-c", "--version"]]) {
    const r = await spawn(...argv);
    assert.equal(r.code, 0, `${argv.join(" ")}: ${r.err}`);
    assert.equal(r.out, `reasonix ${DEV_VERSION}\n`, argv.join(" "));
  }
  const typo = await spawn("--versoin");
  assert.equal(typo.code, EXIT_USAGE);
  assert.match(typo.err, /Did you mean --version\?/);
});

async function shell(program: string, args: string[], stdin?: string): Promise<Run | undefined> {
  try {
    const child = new Deno.Command(program, {
      args,
      stdin: stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(stdin));
      await writer.close();
    }
    const out = await child.output();
    const text = new TextDecoder();
    return { code: out.code, out: text.decode(out.stdout), err: text.decode(out.stderr) };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

Deno.test("reasonix completions prints a script for each shell, from the command tree", async () => {
  for (const sh of ["bash", "zsh", "fish"]) {
    const r = await cli("completions", sh);
    assert.equal(r.code, EXIT_OK, r.err);
    const program = buildProgram({ io: { out() {}, err() {} } });
    configureTree(program, { out() {}, err() {} });
    const script = completionScript(program, sh as "bash");
    assert.equal(`${r.out}\n`, script);
    for (const word of ["run", "sessions", "mcp", "trust", "completions", "--output-format"]) {
      assert.ok(script.includes(word), `${sh} lists ${word}`);
    }
    assert.ok(
      !script.includes("reasonix version"),
      `${sh}: the hidden version command is left out`,
    );
  }
});

Deno.test("the bash completion script parses and completes subcommands, options and choices", async () => {
  const script = (await cli("completions", "bash")).out;
  const syntax = await shell("bash", ["-n"], script);
  assert.ok(syntax, "bash is installed");
  assert.equal(syntax.code, 0, syntax.err);
  const complete = async (...words: string[]) => {
    const probe = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")})\n` +
      `COMP_CWORD=${words.length - 1}\n_reasonix\nprintf '%s\\n' "\${COMPREPLY[@]}"\n`;
    const r = await shell("bash", ["-c", probe]);
    assert.equal(r?.code, 0, r?.err);
    return r!.out.split("\n").filter(Boolean);
  };
  assert.deepEqual(await complete("reasonix", "se"), ["setup", "sessions", "serve"]);
  assert.deepEqual(await complete("reasonix", "mcp", ""), [
    "add",
    "remove",
    "list",
    "get",
    "login",
    "logout",
    "help",
    "-h",
    "--help",
  ]);
  assert.deepEqual(await complete("reasonix", "mcp", "ls", "--"), ["--json", "--help"]);
  assert.deepEqual(await complete("reasonix", "run", "--output-format", ""), [
    "text",
    "json",
    "stream-json",
  ]);
  // The value of an option is not taken for a command: `-m run` names a model.
  assert.deepEqual(await complete("reasonix", "-m", "run", "--out"), []);
  assert.deepEqual(await complete("reasonix", "completions", "z"), ["zsh"]);
});

Deno.test({
  name: "the zsh and fish completion scripts parse (skipped where the shell is missing)",
  async fn(t) {
    for (const [sh, args] of [["zsh", ["-n"]], ["fish", ["--no-execute"]]] as const) {
      const script = (await cli("completions", sh)).out;
      const r = await shell(sh, [...args], script);
      await t.step({
        name: sh,
        ignore: r === undefined,
        fn: () => assert.equal(r?.code, 0, r?.err),
      });
    }
    // fish's own loader: every `complete` line is accepted, and the command path works.
    const fish = (await cli("completions", "fish")).out;
    const loaded = await shell("fish", [
      "-c",
      `${fish}\ncomplete --do-complete 'reasonix mcp a'; complete --do-complete 'reasonix run --output-format '`,
    ]);
    if (loaded) {
      assert.equal(loaded.code, 0, loaded.err);
      assert.match(loaded.out, /^add\t/m);
      assert.match(loaded.out, /^stream-json(\t|$)/m);
    }
  },
});
