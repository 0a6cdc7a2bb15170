/**
 * The program as `deno task install` puts it on the PATH: bundled from this checkout and
 * installed with `deno install -g` into a private root, then run through its launcher on the
 * headless path, subcommands, a lazily loaded MCP host and the interactive UI.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { RUN_FLAGS } from "../../cli/release/compile.ts";
import { buildBundle, installArgs, MODULES_FILE } from "../../cli/release/bundle.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { DENO_JSON, FIXTURE_STDIO } from "../mcp/servers.ts";
import { makeHome, makeRepo } from "./support.ts";
import { TmuxSession } from "./tmux.ts";

const dir = await Deno.makeTempDir({ prefix: "reasonix-install-" });
const launcher = join(dir, "bin", "reasonix");
const built = (async () => {
  await buildBundle(join(dir, "bundle"));
  const out = await new Deno.Command(Deno.execPath(), {
    args: installArgs(join(dir, "bundle"), "reasonix", RUN_FLAGS),
    env: { DENO_INSTALL_ROOT: dir },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
})();
globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // already gone
  }
});

function env(home: string): Record<string, string> {
  const out: Record<string, string> = {
    HOME: Deno.env.get("HOME") ?? "/root",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    REASONIX_HOME: home,
    REASONIX_E2E_KEY: "sk-e2e-test",
    NO_COLOR: "1",
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) out.DENO_DIR = denoDir;
  return out;
}

/** The command line of the installed launcher (a shell script that runs `deno`). */
function argv(...args: string[]): string[] {
  return [launcher, ...args];
}

async function run(args: string[], cwd: string, home: string) {
  const [program, ...rest] = argv(...args);
  const out = await new Deno.Command(program, {
    args: rest,
    cwd,
    clearEnv: true,
    env: env(home),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test("the bundled program runs a tool-using task, subcommands and a lazily loaded MCP host", async () => {
  await built;
  const fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "read_file", arguments: '{"path":"a.txt"}' }] },
      {
        toolCalls: [{
          name: "edit_file",
          arguments: '{"path":"a.txt","old_string":"alpha","new_string":"beta"}',
        }],
      },
      { text: "Edited." },
    ],
  });
  const repo = await makeRepo({ "a.txt": "alpha\n" });
  const home = await makeHome(
    fake.url,
    `\n[[mcp.servers]]\nname = "fx"\ncommand = ${JSON.stringify(Deno.execPath())}\n` +
      `args = ${JSON.stringify(["run", "-A", "--quiet", "--config", DENO_JSON, FIXTURE_STDIO])}\n`,
  );
  try {
    const version = await run(["--version"], repo, home);
    assert.match(version.stdout, /^reasonix \d+\.\d+\.\d+/);

    const result = await run(
      ["run", "--json", "--permission-mode", "auto", "edit a.txt"],
      repo,
      home,
    );
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.status, "completed");
    assert.equal(summary.tool_calls, 2);
    assert.equal(await Deno.readTextFile(join(repo, "a.txt")), "beta\n");

    const sessions = await run(["sessions", "list", "--json"], repo, home);
    assert.equal(JSON.parse(sessions.stdout).length, 1);

    // `mcp list` loads the MCP host (and the SDK) through the bundle's lazy module.
    const mcp = await run(["mcp", "list"], repo, home);
    assert.equal(mcp.code, 0, mcp.stderr);
    assert.match(mcp.stdout, /fx/);
    assert.match(mcp.stdout, /ready/);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name: "the bundled interactive UI starts, answers and exits",
  ignore: !(await TmuxSession.available()),
  fn: async () => {
    await built;
    const fake = await startFakeLlm({ script: [{ text: "Hello from the bundle." }] });
    const repo = await makeRepo({});
    const home = await makeHome(fake.url);
    const vars = { ...env(home), TERM: "xterm-256color", LANG: "C.UTF-8" };
    delete (vars as Record<string, string>).NO_COLOR;
    const tmux = await TmuxSession.start(
      ["env", "-i", ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), ...argv()],
      { cwd: repo, width: 100, height: 30 },
    );
    try {
      await tmux.waitFor("Ask anything", 60_000);
      await tmux.type("hi");
      await tmux.keys("Enter");
      await tmux.waitFor("Hello from the bundle.");
      await tmux.keys("C-c");
      await tmux.keys("C-c");
      await tmux.waitFor("[exit 0]");
    } finally {
      await tmux.kill();
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});

/** The bundle files `entry` loads before any dynamic import, itself included. */
async function staticClosure(bundle: string, entry: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const visit = async (file: string): Promise<void> => {
    if (out.has(file)) return;
    const text = await Deno.readTextFile(file);
    out.set(file, text);
    // Static imports and re-exports, minified or not (`import(…)` has a parenthesis).
    for (const m of text.matchAll(/(?:\bfrom ?|\bimport ?)"(\.[^"]+\.js)"/g)) {
      await visit(join(file, "..", m[1]));
    }
  };
  await visit(join(bundle, entry));
  return out;
}

/** The npm packages (`name@version`-less) whose code is among `files`, by file. */
async function packagesIn(files: Map<string, string>, names: RegExp): Promise<string[]> {
  // The build lists each file's modules (minified files name none).
  const bundle = join(dir, "bundle");
  const modules = JSON.parse(await Deno.readTextFile(join(bundle, MODULES_FILE))) as Record<
    string,
    string[]
  >;
  const pattern = new RegExp(`^npm:(${names.source})/`);
  return [...files.keys()].flatMap((file) => {
    const listed = modules[relative(bundle, file)];
    assert.ok(listed, `${file} is listed in ${MODULES_FILE}`);
    const hit = listed.map((m) => pattern.exec(m)).find((m) => m !== null);
    return hit ? [`${file}: ${hit[1]}`] : [];
  });
}

/** What a plain `reasonix run …` loads before any dynamic import but the MCP host's. */
async function runPath(): Promise<Map<string, string>> {
  const bundle = join(dir, "bundle");
  const files = new Map<string, string>();
  for (const entry of ["cli/main.js", "cli/commands/fast_run.js", "cli/run.js"]) {
    for (const [file, text] of await staticClosure(bundle, entry)) files.set(file, text);
  }
  return files;
}

Deno.test("the headless run path loads neither the MCP SDK nor the interactive UI", async () => {
  await built;
  const closure = await runPath();
  assert.ok(closure.size > 3, "run.js imports its chunks statically");
  assert.deepEqual(await packagesIn(closure, /@modelcontextprotocol\/sdk|ajv|ink|react/), []);
  // The prompt library of `reasonix setup` loads with that command only: not on the run path,
  // nor with the command tree every other command parses with.
  const app = await staticClosure(join(dir, "bundle"), "cli/app.js");
  assert.deepEqual(
    await packagesIn(new Map([...closure, ...app]), /@clack\/prompts|@clack\/core/),
    [],
  );
});

Deno.test("a plain reasonix run loads no command library, no node:child_process, node:fs or node:module", async () => {
  await built;
  const closure = await runPath();
  assert.deepEqual(await packagesIn(closure, /commander/), []);
  // A bundled CommonJS module requires at load time with a top-level `var x = __require(…)`
  // (minified: `var x=A(…)` or `,x=A(…)`); a deferred require sits behind `=>`.
  const eager = /(?:\bvar |,)[\w$]+ ?= ?[\w$]+\("node:(child_process|fs)"\)/;
  const required = (files: Map<string, string>) =>
    [...files].flatMap(([file, text]) => {
      const hit = eager.exec(text);
      return hit ? [`${file}: node:${hit[1]}`] : [];
    });
  assert.deepEqual(required(closure), []);
  // Nor `node:module`: esbuild's helpers make their `require` on first use (the bundle build).
  const nodeModule = [...closure].filter(([, text]) => /from ?"node:module"/.test(text));
  assert.deepEqual(nodeModule.map(([file]) => file), []);
  // Every other command parses with the tree, where the build defers commander's two requires
  // (used for executable subcommands only).
  const app = await staticClosure(join(dir, "bundle"), "cli/app.js");
  assert.equal((await packagesIn(app, /commander/)).length, 1, "cli/app.js loads commander");
  assert.deepEqual(required(app), []);
});

Deno.test("every bundled file is Latin-1, so V8 keeps its source at one byte per character", async () => {
  await built;
  const wide: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for await (const e of Deno.readDir(d)) {
      const path = join(d, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".js") && /[\u0100-\uffff]/.test(await Deno.readTextFile(path))) {
        wide.push(path);
      }
    }
  };
  await walk(join(dir, "bundle"));
  assert.deepEqual(wide, []);
});
