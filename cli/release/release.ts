/**
 * `deno task release`: the six binaries of `deno task compile`, their SHA-256 checksums and
 * the CHANGELOG.md section of the version, in `dist/release/<version>/`.
 *
 * `deno compile` builds each binary from a Deno runtime base binary (`denort`) for its target,
 * downloaded from dl.deno.land on first use and cached in the Deno directory. Every one of the
 * six is checked before anything is built: when one can be neither found nor fetched the
 * script says which and why, and builds nothing. A failed build removes what it made, so the
 * release directory is either whole or absent.
 *
 * Usage: deno task release [--out dist/release] [--denort-url <base>]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { basename, join, resolve } from "node:path";
import {
  binaryName,
  compileTargets,
  describeCommit,
  describeVersion,
  ROOT,
  TARGETS,
} from "./compile.ts";

/** Where `deno compile` downloads `denort` from; `--denort-url` replaces it (tests). */
export const DENORT_URL = "https://dl.deno.land/release";

/** The cached or downloadable `denort` of one target. */
export interface DenortSource {
  /** A key of {@link TARGETS}. */
  name: string;
  /** The archive `deno compile` looks for in its cache. */
  cached: string;
  /** Where it is downloaded from when not cached. */
  url: string;
}

/** Where `deno compile` of this Deno finds (or fetches) the base binary for target `name`. */
export function denortSource(
  name: string,
  opts: { denoDir: string; denoVersion?: string; baseUrl?: string },
): DenortSource {
  const deno = opts.denoVersion ?? Deno.version.deno;
  const file = `denort-${TARGETS[name]}.zip`;
  return {
    name,
    cached: join(opts.denoDir, "dl", "release", `v${deno}`, file),
    url: `${opts.baseUrl ?? DENORT_URL}/v${deno}/${file}`,
  };
}

/** The Deno directory `deno compile` caches downloads in (`DENO_DIR`, else `deno info`'s). */
export async function denoDir(
  env: { get(name: string): string | undefined } = Deno.env,
): Promise<string> {
  const configured = env.get("DENO_DIR");
  if (configured) return configured;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
}

/** Why the base binary of `source` is not available, or undefined when it is. */
export async function denortProblem(
  source: DenortSource,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<string | undefined> {
  try {
    if ((await Deno.stat(source.cached)).isFile) return undefined;
  } catch {
    // Not cached: it must be downloadable.
  }
  const signals = [AbortSignal.timeout(opts.timeoutMs ?? 10_000)];
  if (opts.signal) signals.push(opts.signal);
  try {
    const response = await fetch(source.url, { method: "HEAD", signal: AbortSignal.any(signals) });
    await response.body?.cancel();
    if (response.ok) return undefined;
    return `${source.url} answered HTTP ${response.status}`;
  } catch (error) {
    return `${source.url} cannot be fetched (${(error as Error).message})`;
  }
}

/** The bytes of `path` as a lowercase hex SHA-256. */
export async function sha256File(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Writes `SHA256SUMS` beside `files` in the format `sha256sum --check` reads: one
 * `<hex>  <name>` line per file, sorted by name. Returns the file's path.
 */
export async function writeChecksums(dir: string, files: readonly string[]): Promise<string> {
  const lines: string[] = [];
  for (const file of [...files].sort((a, b) => basename(a) < basename(b) ? -1 : 1)) {
    lines.push(`${await sha256File(file)}  ${basename(file)}`);
  }
  const path = join(dir, "SHA256SUMS");
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  return path;
}

/**
 * The section of `changelog` (Keep a Changelog: `## [1.2.3] - date`) for `version`, its heading
 * included. A `git describe` past a tag (`1.2.3-4-gabc1234`) or a bare commit has no section
 * of its own: it gets `## [Unreleased]`. Undefined when there is no such section.
 */
export function changelogSection(changelog: string, version: string): string | undefined {
  const tagged = /^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$/.test(version) &&
    !/-\d+-g[0-9a-f]+(-dirty)?$/.test(version) && !version.endsWith("-dirty");
  const wanted = tagged ? version : "Unreleased";
  const lines = changelog.split("\n");
  const start = lines.findIndex((line) => {
    const m = /^## \[?([^\]\s]+)\]?/.exec(line);
    return m !== null && m[1].toLowerCase() === wanted.toLowerCase();
  });
  if (start < 0) return undefined;
  let end = lines.findIndex((line, i) => i > start && /^## /.test(line));
  if (end < 0) end = lines.length;
  // Link definitions at the end belong to the whole file, not the section.
  const body = lines.slice(start, end).filter((line) => !/^\[[^\]]+\]: /.test(line));
  return body.join("\n").trimEnd() + "\n";
}

/** Options of {@link release}. */
export interface ReleaseOptions {
  /** Where `<version>/` is made. */
  out: string;
  version: string;
  commit?: string;
  /** The CHANGELOG.md text. */
  changelog: string;
  /** The Deno directory holding the cached base binaries. */
  denoDir: string;
  /** Replaces {@link DENORT_URL}. */
  denortUrl?: string;
  /** Replaces the six {@link TARGETS} (tests). */
  names?: readonly string[];
  /** Where progress and problems are reported. */
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** What {@link release} did. */
export type ReleaseResult =
  | { ok: true; dir: string; files: string[] }
  | { ok: false; problem: string };

/**
 * Checks that every base binary is at hand and the changelog has the version's section, then
 * builds into a staging directory renamed to `<out>/<version>` once everything is in it.
 */
export async function release(opts: ReleaseOptions): Promise<ReleaseResult> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const names = opts.names ?? Object.keys(TARGETS);
  const notes = changelogSection(opts.changelog, opts.version);
  if (!notes) {
    return {
      ok: false,
      problem: `CHANGELOG.md has no section for ${opts.version} (nor "## [Unreleased]"); ` +
        `add "## [${opts.version}]" with its changes, then release again. Nothing was built.`,
    };
  }
  const problems: string[] = [];
  for (const name of names) {
    const source = denortSource(name, { denoDir: opts.denoDir, baseUrl: opts.denortUrl });
    const problem = await denortProblem(source, { signal: opts.signal });
    if (problem) problems.push(`  ${name}: not in ${source.cached}, and ${problem}`);
  }
  if (problems.length) {
    return {
      ok: false,
      problem: [
        `deno compile needs the Deno runtime base binary (denort ${Deno.version.deno}) of every ` +
        "target, from the network or the Deno cache, and these cannot be had:",
        ...problems,
        "Nothing was built. Run the release where dl.deno.land is reachable, or put the " +
        "denort-<target>.zip archives in the cache paths above (deno compile --target <target> " +
        "on a connected machine fills that cache).",
      ].join("\n"),
    };
  }
  const dir = join(opts.out, opts.version);
  try {
    await Deno.stat(dir);
    return {
      ok: false,
      problem: `${dir} already exists; remove it to build ${opts.version} again`,
    };
  } catch {
    // Not yet built: go on.
  }
  const staging = join(opts.out, `.${opts.version}.partial`);
  await Deno.remove(staging, { recursive: true }).catch(() => {});
  try {
    const { built, failed, reasons } = await compileTargets({
      names,
      out: staging,
      entryDir: join(ROOT, "dist"),
      version: opts.version,
      commit: opts.commit,
      // The cache the check looked in is the one the build uses.
      denoDir: opts.denoDir,
      signal: opts.signal,
    });
    if (failed.length) {
      throw new Error(`deno compile failed for ${failed.join(", ")} (${reasons.join("; ")})`);
    }
    await writeChecksums(staging, built);
    await Deno.writeTextFile(join(staging, "RELEASE_NOTES.md"), notes);
    await Deno.rename(staging, dir);
    const files = [
      ...names.map((n) => binaryName(opts.version, n)),
      "SHA256SUMS",
      "RELEASE_NOTES.md",
    ];
    log(`release ${opts.version} in ${dir}: ${files.join(", ")}`);
    return { ok: true, dir, files };
  } catch (error) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    return { ok: false, problem: `${(error as Error).message}; nothing was kept` };
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { out: { type: "string" }, "denort-url": { type: "string" } },
  });
  const result = await release({
    out: resolve(ROOT, values.out ?? "dist/release"),
    version: await describeVersion(),
    commit: await describeCommit(),
    changelog: await Deno.readTextFile(join(ROOT, "CHANGELOG.md")),
    denoDir: await denoDir(),
    denortUrl: values["denort-url"],
  });
  if (!result.ok) {
    console.error(`deno task release: ${result.problem}`);
    Deno.exit(1);
  }
}
