/**
 * `deno task compile`: builds single-file binaries for darwin|linux|windows × x64|arm64 with
 * the `git describe` version, the commit and the target injected through a generated entry
 * module per target.
 *
 * Usage: deno task compile [--target <os>-<arch>]... [--out dist]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LAZY_MODULES } from "../lazy.ts";
import type { BuildInfo } from "../version.ts";

/** The six release targets, named `<os>-<arch>` for the output files. */
export const TARGETS: Record<string, string> = {
  "linux-x64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "windows-x64": "x86_64-pc-windows-msvc",
  "windows-arm64": "aarch64-pc-windows-msvc",
};

/**
 * The flags the binary runs with: the same explicit permission set as `deno task reasonix`
 * (never `-A`), and a small young generation: a CLI's garbage is short-lived, and the default
 * semi-space lets the heap balloon past 100 MB over a long session for no speed gain.
 */
export const RUN_FLAGS: string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-sys=osRelease,hostname,homedir",
  "--v8-flags=--max-semi-space-size=2,--expose-gc",
];

/** The repository root. */
export const ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

async function git(args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("git", {
      args,
      cwd: ROOT,
      stdout: "piped",
      stderr: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    return out.success && text ? text : undefined;
  } catch {
    return undefined; // git missing
  }
}

/** `git describe --tags --always`, or the deno.json version outside a git checkout. */
export async function describeVersion(): Promise<string> {
  const described = await git(["describe", "--tags", "--always", "--dirty"]);
  if (described) return described.replace(/^v/, "");
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  return String(config.version);
}

/** The full hash of `HEAD`, or undefined outside a git checkout. */
export function describeCommit(): Promise<string | undefined> {
  return git(["rev-parse", "HEAD"]);
}

/**
 * The generated entry: sets the version (and the commit and target it was built from), then
 * runs the normal CLI. It sits one directory below the repository root.
 */
export function entrySource(version: string, info: BuildInfo = {}): string {
  return `import { setVersion } from "../cli/version.ts";\n` +
    `setVersion(${JSON.stringify(version)}, ${JSON.stringify(info)});\n` +
    `const { main } = await import("../cli/main.ts");\n` +
    `Deno.exit(await main(Deno.args));\n`;
}

/** The file name of the binary for target `name` (a key of {@link TARGETS}). */
export function binaryName(version: string, name: string): string {
  return `reasonix-${version}-${name}${name.startsWith("windows") ? ".exe" : ""}`;
}

/** The `deno compile` arguments that build `entry` for target `name` into `output`. */
export function compileArgs(name: string, entry: string, output: string): string[] {
  return [
    "compile",
    ...RUN_FLAGS,
    "--config",
    join(ROOT, "deno.json"),
    // Imported through computed specifiers (cli/lazy.ts), so not found by analysis.
    ...LAZY_MODULES.flatMap((module) => ["--include", join(ROOT, module)]),
    "--target",
    TARGETS[name],
    "--output",
    output,
    entry,
  ];
}

/** The names among `names` that are not keys of {@link TARGETS}. */
export function unknownTargets(names: readonly string[]): string[] {
  return names.filter((name) => !(name in TARGETS));
}

/** Options of {@link compileTargets}. */
export interface CompileOptions {
  names: readonly string[];
  /** Where the binaries go. */
  out: string;
  /** Where the generated entry modules go: a directory directly below the repository root. */
  entryDir: string;
  version: string;
  commit?: string;
  /** The Deno directory whose cached base binaries `deno compile` uses; default its own. */
  denoDir?: string;
  signal?: AbortSignal;
}

/** The last lines of what a failed `deno compile` said, colours removed, as one line. */
function lastWords(stderr: string): string {
  // deno compile ends an error with a numbered cause chain and, on some builds, a backtrace.
  // deno-lint-ignore no-control-regex -- terminal colour codes start with ESC.
  const lines = stderr.replace(/\x1b\[[0-9;]*m/g, "").split("\n").map((l) => l.trim())
    .filter((l) => l && !/^\d+: <unknown>$/.test(l) && l !== "Stack backtrace:");
  return lines.slice(-2).join(" | ");
}

/**
 * Builds every target in `names`; returns the paths built, the names that failed and, for
 * each of those, the end of what `deno compile` said (which is also passed through).
 */
export async function compileTargets(
  opts: CompileOptions,
): Promise<{ built: string[]; failed: string[]; reasons: string[] }> {
  await Deno.mkdir(opts.out, { recursive: true });
  await Deno.mkdir(opts.entryDir, { recursive: true });
  const built: string[] = [];
  const failed: string[] = [];
  const reasons: string[] = [];
  for (const name of opts.names) {
    const entry = join(opts.entryDir, `entry-${name}.ts`);
    const info: BuildInfo = {
      target: TARGETS[name],
      ...(opts.commit ? { commit: opts.commit } : {}),
    };
    await Deno.writeTextFile(entry, entrySource(opts.version, info));
    const output = join(opts.out, binaryName(opts.version, name));
    console.error(`compiling ${name} → ${output}`);
    const child = new Deno.Command(Deno.execPath(), {
      args: compileArgs(name, entry, output),
      stdout: "inherit",
      stderr: "piped",
      ...(opts.denoDir ? { env: { DENO_DIR: opts.denoDir } } : {}),
      signal: opts.signal,
    }).spawn();
    let said = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      await Deno.stderr.write(chunk);
      said = (said + decoder.decode(chunk, { stream: true })).slice(-4096);
    }
    const status = await child.status;
    if (status.success) built.push(output);
    else {
      failed.push(name);
      reasons.push(`${name}: ${lastWords(said) || `exit ${status.code}`}`);
    }
  }
  return { built, failed, reasons };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { target: { type: "string", multiple: true }, out: { type: "string" } },
  });
  const out = resolve(ROOT, values.out ?? "dist");
  const names = values.target?.length ? values.target : Object.keys(TARGETS);
  const unknown = unknownTargets(names);
  if (unknown.length) {
    console.error(`unknown target "${unknown[0]}" (known: ${Object.keys(TARGETS).join(", ")})`);
    Deno.exit(2);
  }
  const { failed } = await compileTargets({
    names,
    out,
    entryDir: join(ROOT, "dist"),
    version: await describeVersion(),
    commit: await describeCommit(),
  });
  Deno.exit(failed.length ? 1 : 0);
}
