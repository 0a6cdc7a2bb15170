/**
 * The unsandboxed shell launcher, and the careful `PATH` lookup for the programs that start
 * shell commands. The permission layer supplies a sandboxing launcher (e.g. bubblewrap)
 * through `ToolContext.shell` when a preset requires one.
 *
 * A program that Reasonix itself starts outside any sandbox (`bash`, `setsid`, `bwrap`) must
 * not come from a place a sandboxed command can write: a relative `PATH` entry (empty, `.`,
 * `node_modules/.bin`) names a directory in whatever the current directory is, and an entry
 * inside the workspace is writable by every `bash` call. Either would let one command plant
 * the program the next command starts unconfined.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { pathListDelimiter } from "./fs/files.ts";
import { isWithin } from "./paths.ts";
import type { ShellLaunch, ShellLauncher, ShellSpawnOptions } from "./types.ts";
import { localWorkspace } from "./workspace/local.ts";
import type { Workspace } from "./workspace/types.ts";

/** Options of {@linkcode findTrustedProgram}. */
export interface ProgramLookupOptions {
  /** Where to look; default this machine ({@linkcode localWorkspace}). */
  workspace?: Workspace;
  /** The `PATH` to search; default the workspace's. */
  path?: string;
  /**
   * Canonical directories whose programs are never used (the writable roots). An entry
   * inside one, or one that resolves into one through a symlink, is skipped.
   */
  untrusted?: readonly string[];
}

/**
 * The absolute path of `name` in the first `PATH` entry that is absolute, lies outside every
 * untrusted directory and holds an executable file that does not resolve into one either.
 * Returns the path as found (not the link target: multi-call programs need their name).
 */
export async function findTrustedProgram(
  name: string,
  opts: ProgramLookupOptions = {},
): Promise<string | undefined> {
  const ws = opts.workspace ?? localWorkspace();
  const windows = ws.os === "windows";
  const suffixes = windows ? ["", ".exe", ".cmd", ".bat"] : [""];
  const untrusted = opts.untrusted ?? [];
  const inUntrusted = (path: string) => untrusted.some((dir) => isWithin(dir, path));
  for (const dir of (opts.path ?? ws.getEnv("PATH") ?? "").split(pathListDelimiter(ws))) {
    if (!dir || !isAbsolute(dir)) continue;
    const real = await ws.realPath(dir).catch(() => undefined);
    if (real === undefined || inUntrusted(dir) || inUntrusted(real)) continue;
    for (const suffix of suffixes) {
      const candidate = join(dir, name + suffix);
      try {
        const info = await ws.stat(candidate);
        if (!info.isFile || (!windows && info.mode !== null && (info.mode & 0o111) === 0)) {
          continue;
        }
        if (inUntrusted(await ws.realPath(candidate))) continue;
        return candidate;
      } catch {
        // Not in this directory.
      }
    }
  }
  return undefined;
}

let directBash: Promise<string> | undefined;

/**
 * Runs commands with `bash -c`, without any OS sandbox. `bash` is looked up once, skipping
 * relative `PATH` entries; without it the bare name is left to the system.
 */
export const directShell: ShellLauncher = {
  async launch(command: string, _opts: ShellSpawnOptions): Promise<ShellLaunch> {
    directBash ??= findTrustedProgram("bash").then((found) => found ?? "bash");
    return { program: await directBash, args: ["-c", command] };
  },
};
