import assert from "node:assert/strict";
import { join } from "node:path";

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const DENO_JSON = new URL("../deno.json", import.meta.url).pathname;

interface Dirs {
  home: string;
  cwd: string;
  userConfig: string;
  projectConfig: string;
}

/** A temp home and project directory for one test, removed afterwards. */
async function withDirs(fn: (dirs: Dirs) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-config-cmd-" }));
  const dirs = {
    home: join(root, "home"),
    cwd: join(root, "project"),
    userConfig: join(root, "home", "config.toml"),
    projectConfig: join(root, "project", "reasonix.toml"),
  };
  await Deno.mkdir(dirs.home);
  await Deno.mkdir(dirs.cwd);
  try {
    await fn(dirs);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Runs the real CLI (`reasonix config …`) in `cwd` with `home` as REASONIX_HOME. */
async function rx(
  args: string[],
  opts: { cwd: string; home: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", DENO_JSON, MAIN, "config", ...args],
    cwd: opts.cwd,
    // This process's environment keeps Deno's own cache; only the Reasonix home is ours.
    env: { REASONIX_HOME: opts.home },
    signal: AbortSignal.timeout(60_000),
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** Asserts exit 2 with one clear `reasonix: <file>…` error and its fix, no stack trace. */
function assertUsageError(
  result: { code: number; stdout: string; stderr: string },
  includes: string,
): void {
  assert.equal(result.code, 2, result.stdout + result.stderr);
  assert.ok(result.stderr.includes(includes), result.stderr);
  assert.match(result.stderr, /\nfix: \S/);
  assert.doesNotMatch(result.stderr, /Uncaught|\n\s+at /);
}

Deno.test("config compact-ratio refuses a config that is not UTF-8 and leaves it as it is", async () => {
  await withDirs(async (dirs) => {
    const encode = (s: string) => new TextEncoder().encode(s);
    const bytes = new Uint8Array([
      ...encode("# caf"),
      0xe9,
      ...encode("\n[agent]\nsoft_compact_ratio = 0.5\n"),
    ]);
    await Deno.writeFile(dirs.userConfig, bytes);
    const result = await rx(["compact-ratio", "0.6"], dirs);
    assertUsageError(result, `${dirs.userConfig}:1:6: the file is not valid UTF-8`);
    assert.deepEqual(await Deno.readFile(dirs.userConfig), bytes);
  });
});

Deno.test("config compact-ratio names a directory or a file that is in the way", async () => {
  await withDirs(async (dirs) => {
    await Deno.mkdir(dirs.userConfig);
    assertUsageError(
      await rx(["compact-ratio", "0.6"], dirs),
      `${dirs.userConfig}: cannot read the file: it is a directory`,
    );
  });
  await withDirs(async (dirs) => {
    await Deno.mkdir(dirs.projectConfig);
    assertUsageError(
      await rx(["compact-ratio", "--local", "0.6"], dirs),
      `${dirs.projectConfig}: cannot read the file: it is a directory`,
    );
  });
  await withDirs(async (dirs) => {
    const home = join(dirs.cwd, "home-file");
    await Deno.writeTextFile(home, "");
    const result = await rx(["compact-ratio", "0.6"], { cwd: dirs.cwd, home });
    assertUsageError(result, `${home} is a file, not a directory`);
    assert.equal(await Deno.readTextFile(home), "");
  });
});

Deno.test("showing compact-ratio reports the configuration error that run would report", async () => {
  const broken: [string, string, string][] = [
    ["user", "[agent\n", ":1:7: invalid TOML"],
    ["user", '[agent]\ncompact_ratio = "abc"\n', ":2:1: agent.compact_ratio must be a number"],
    ["project", "[agent]\ncompact_ratio = 0.75\nmax_turns = [\n", ":4:1: invalid TOML"],
  ];
  for (const [layer, text, includes] of broken) {
    await withDirs(async (dirs) => {
      await Deno.writeTextFile(dirs.userConfig, "[agent]\ncompact_ratio = 0.7\n");
      const file = layer === "user" ? dirs.userConfig : dirs.projectConfig;
      await Deno.writeTextFile(file, text);
      const result = await rx(["compact-ratio"], dirs);
      assertUsageError(result, `${file}${includes}`);
      assert.equal(result.stdout, "");
    });
  }
  await withDirs(async (dirs) => {
    await Deno.mkdir(dirs.userConfig);
    assertUsageError(await rx(["compact-ratio"], dirs), "it is a directory");
  });
  await withDirs(async (dirs) => {
    await Deno.writeTextFile(dirs.userConfig, "agent.compact_ratio = 0.7\n");
    const result = await rx(["compact-ratio"], dirs);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `compact_ratio = 0.70 (from ${dirs.userConfig})\n`);
  });
});

Deno.test("config compact-ratio edits quoted and dotted keys in place", async () => {
  const cases: [string, string][] = [
    ['[agent]\n"compact_ratio" = 0.7 # mine\n', '[agent]\n"compact_ratio" = 0.6 # mine\n'],
    [
      "agent.temperature = 0.0\n\n[tools]\nbash_timeout_seconds = 5\n",
      "agent.temperature = 0.0\nagent.compact_ratio = 0.6\n\n[tools]\nbash_timeout_seconds = 5\n",
    ],
  ];
  for (const [before, after] of cases) {
    await withDirs(async (dirs) => {
      await Deno.writeTextFile(dirs.userConfig, before);
      const result = await rx(["compact-ratio", "0.6"], dirs);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(await Deno.readTextFile(dirs.userConfig), after);
    });
  }
});

Deno.test("config compact-ratio explains why it cannot extend an inline agent table", async () => {
  await withDirs(async (dirs) => {
    const text = "# mine\nagent = { temperature = 0.0 }\n";
    await Deno.writeTextFile(dirs.userConfig, text);
    const result = await rx(["compact-ratio", "0.6"], dirs);
    assertUsageError(result, `${dirs.userConfig}:2: the agent table is written inline`);
    assert.ok(result.stderr.includes("agent = { temperature = 0.0 }"), result.stderr);
    assert.match(result.stderr, /or turn it into an \[agent\] section/);
    assert.doesNotMatch(result.stderr, /repair the file's TOML/);
    assert.equal(await Deno.readTextFile(dirs.userConfig), text);
  });
});

Deno.test("config compact-ratio writes through a symlinked config to its target", async () => {
  await withDirs(async (dirs) => {
    await Deno.mkdir(join(dirs.home, "dotfiles"));
    const target = join(dirs.home, "dotfiles", "config.toml");
    await Deno.writeTextFile(target, "[agent]\nmax_turns = 3\n");
    await Deno.chmod(target, 0o600);
    await Deno.symlink("dotfiles/config.toml", dirs.userConfig);
    const result = await rx(["compact-ratio", "0.6"], dirs);
    assert.equal(result.code, 0, result.stderr);
    assert.ok((await Deno.lstat(dirs.userConfig)).isSymlink);
    assert.equal(await Deno.readTextFile(target), "[agent]\nmax_turns = 3\ncompact_ratio = 0.6\n");
    assert.equal((await Deno.stat(target)).mode! & 0o777, 0o600);
  });
});
