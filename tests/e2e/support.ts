/**
 * Helpers for end-to-end tests that run the real CLI through `deno task reasonix`.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { RUN_FLAGS } from "../../cli/release/compile.ts";

/** The repository's deno.json. */
export const CONFIG_PATH: string = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../deno.json",
);

/** Creates a temporary git repository holding `files`. */
export async function makeRepo(files: Record<string, string>): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-e2e-repo-" }));
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  const git = (...args: string[]) =>
    new Deno.Command("git", { args, cwd: dir, stdout: "null", stderr: "null" }).output();
  await git("init", "-q");
  await git("add", "-A");
  await git(
    "-c",
    "user.email=e2e@reasonix.invalid",
    "-c",
    "user.name=e2e",
    "commit",
    "-qm",
    "init",
  );
  return dir;
}

/** Creates a Reasonix home whose config points the default model at `baseUrl`. */
export async function makeHome(baseUrl: string, extraToml = ""): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-home-" });
  await Deno.writeTextFile(
    join(home, "config.toml"),
    `default_model = "fake"

[[providers]]
name = "fake"
kind = "openai"
base_url = "${baseUrl}"
models = ["fake-model"]
api_key_env = "REASONIX_E2E_KEY"
context_window = 128000
${extraToml}`,
  );
  return home;
}

/** Result of a CLI run. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command line of `deno task reasonix`, with the repository's deno.json. */
export const REASONIX_TASK: readonly string[] = [
  Deno.execPath(),
  "task",
  "--quiet",
  "--config",
  CONFIG_PATH,
  "reasonix",
];

/**
 * The environment a CLI run gets: this process's, without a real DeepSeek key and without the
 * INIT_CWD an outer `deno task` leaves (it would point the CLI at the outer task's directory).
 */
export function cliEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.DEEPSEEK_API_KEY;
  delete env.INIT_CWD;
  // A test that gives the program its own HOME must not give Deno an empty module cache too:
  // every run would fetch and compile the program's npm packages again (tens of seconds).
  if (extra.HOME !== undefined && env.DENO_DIR === undefined && extra.DENO_DIR === undefined) {
    env.DENO_DIR = defaultDenoDir(env);
  }
  return { ...env, REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", NO_COLOR: "1", ...extra };
}

/**
 * The specifiers of every module `entry` (relative to the repository root) loads, as
 * `deno info --json` reports them with the repository's deno.json.
 */
export async function moduleGraph(entry: string): Promise<string[]> {
  const root = CONFIG_PATH.slice(0, CONFIG_PATH.lastIndexOf("/"));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", CONFIG_PATH, join(root, entry)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string }[];
  };
  return info.modules.map((m) => m.specifier);
}

/** Where Deno keeps its cache when DENO_DIR is not set (as `deno info` reports it). */
function defaultDenoDir(env: Record<string, string>): string {
  const home = env.HOME ?? env.USERPROFILE ?? "";
  if (Deno.build.os === "darwin") return `${home}/Library/Caches/deno`;
  if (Deno.build.os === "windows") return `${env.LOCALAPPDATA ?? home}\\deno`;
  return `${env.XDG_CACHE_HOME ?? `${home}/.cache`}/deno`;
}

/**
 * The `deno run …` line of the `reasonix` task itself, without `deno task` in between: for
 * tests that signal the program, since `deno task` stands between a signal and its child.
 */
export function reasonixProgram(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(CONFIG_PATH)) as { tasks: { reasonix: string } };
  const root = CONFIG_PATH.slice(0, CONFIG_PATH.lastIndexOf("/"));
  const words = config.tasks.reasonix.replace(/ --cwd "\$INIT_CWD"$/, "").split(" ");
  return [
    Deno.execPath(),
    ...words.slice(1, -1),
    "--config",
    CONFIG_PATH,
    `${root}/${words.at(-1)}`,
  ];
}

/**
 * `reasonix <args>` from the sources with the launcher's flags, started in `cwd` with `home` as
 * REASONIX_HOME and left running: for tests that read it as it goes or kill it.
 */
export function spawnReasonix(args: string[], cwd: string, home: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...RUN_FLAGS,
      "--config",
      CONFIG_PATH,
      join(CONFIG_PATH, "../cli/main.ts"),
      ...args,
    ],
    cwd,
    clearEnv: true,
    env: cliEnv(home),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs `deno task reasonix <args>` from `cwd` with `home` as REASONIX_HOME. */
export async function runReasonix(
  args: string[],
  opts: { cwd: string; home: string; env?: Record<string, string>; signal?: AbortSignal },
): Promise<CliResult> {
  const [program, ...taskArgs] = REASONIX_TASK;
  const out = await new Deno.Command(program, {
    args: [...taskArgs, ...args],
    cwd: opts.cwd,
    clearEnv: true,
    env: cliEnv(opts.home, opts.env),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: opts.signal,
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/**
 * The command line of the interactive program for a tmux test: `deno task reasonix` in a clean
 * environment (no INIT_CWD from an outer `deno task`, no CI variables) with `home` as
 * REASONIX_HOME and the fake provider's key.
 */
export function interactiveArgv(home: string, args: readonly string[] = []): string[] {
  const env: Record<string, string> = {
    HOME: Deno.env.get("HOME") ?? "/root",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    REASONIX_HOME: home,
    REASONIX_E2E_KEY: "sk-e2e-test",
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  return [
    "env",
    "-i",
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    ...REASONIX_TASK,
    ...args,
  ];
}
