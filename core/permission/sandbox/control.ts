/**
 * The project's control files: the files that make Reasonix or git start programs later,
 * outside any sandbox. A sandboxed command may read them but not change them, or it could
 * plant persistence (a `.mcp.json` server, a git hook) that runs at the user's next start or
 * `git checkout`.
 *
 * Files and directories that exist are mounted read-only over themselves (their parents are
 * pinned by the launcher, so they cannot be renamed away either). A mount needs something to
 * mount on, so a name that does not exist yet cannot be covered without creating it in the
 * user's tree; and a symlink cannot be covered at all (a mount follows it). Those are
 * guarded instead: recorded before the command and restored after it and everything it
 * started have ended — a created file is removed, a changed link put back.
 *
 * @module
 */
import { dirname, join, relative, resolve } from "node:path";
import { canonicalPath } from "../confine.ts";
import { controlTargets } from "../control_files.ts";
import { localWorkspace } from "../../../tools/workspace/local.ts";
import type { FileInfo, Workspace } from "../../../tools/workspace/types.ts";

/** Names, in the workspace root and the project directory, that Reasonix reads at start-up. */
export const PROJECT_CONTROL_FILES: readonly string[] = [
  "reasonix.toml",
  ".mcp.json",
  ".env",
  ".reasonix",
];

/**
 * Names in a git directory that decide which programs git runs: hooks, the configuration
 * (`core.hooksPath`, `core.fsmonitor`, aliases, filters) and `commondir`, which points git at
 * another directory's hooks and configuration.
 */
export const GIT_CONTROL_FILES: readonly string[] = ["hooks", "config", "commondir"];

/** A control path that cannot be mounted read-only and is checked after the command. */
export interface Guard {
  path: string;
  /** What it was before the command: absent, or a symlink with this target. */
  was: { kind: "missing" } | { kind: "link"; target: string };
}

/** How the launcher protects the control files for one command. */
export interface ControlPlan {
  /** Existing paths to mount read-only over themselves. */
  readOnly: string[];
  guards: Guard[];
}

/** Where the control files are: a workspace, default this machine's. */
export interface ControlOptions {
  workspace?: Workspace;
}

function lstatOn(ws: Workspace): (path: string) => Promise<FileInfo | undefined> {
  return (path) => ws.lstat(path).catch(() => undefined);
}

async function readText(ws: Workspace, path: string): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await ws.readFile(path));
  } catch {
    return undefined;
  }
}

/**
 * The plan for the control files of `dirs` (canonical). Only paths that `writable` accepts
 * are covered: everything else is read-only in the sandbox already.
 */
export async function controlPlan(
  dirs: readonly string[],
  writable: (path: string) => boolean,
  opts: ControlOptions = {},
): Promise<ControlPlan> {
  const ws = opts.workspace ?? localWorkspace();
  const on = { workspace: ws };
  const lstat = lstatOn(ws);
  const plan: ControlPlan = { readOnly: [], guards: [] };
  const seen = new Set<string>();

  /** Covers `path`; through a link, also what it leads to unless `linkOnly`. */
  const protect = async (path: string, linkOnly = false): Promise<void> => {
    if (seen.has(path) || !writable(path)) return;
    seen.add(path);
    const info = await lstat(path);
    if (!info) plan.guards.push({ path, was: { kind: "missing" } });
    else if (!info.isSymlink) plan.readOnly.push(path);
    else {
      plan.guards.push({ path, was: { kind: "link", target: await ws.readLink(path) } });
      const target = await canonicalPath(path, on);
      if (!linkOnly && (await lstat(target))) await protect(target);
    }
  };

  const protectGitDir = async (gitDir: string, depth: number): Promise<void> => {
    for (const name of GIT_CONTROL_FILES) await protect(join(gitDir, name));
    const commondir = join(gitDir, "commondir");
    const text = await readText(ws, commondir);
    if (text === undefined || depth > 0) return;
    const common = await canonicalPath(resolve(gitDir, text.trim()), on);
    if ((await lstat(common))?.isDirectory) await protectGitDir(common, depth + 1);
  };

  for (const dir of dirs) {
    for (const name of PROJECT_CONTROL_FILES) await protect(join(dir, name));
    const dotGit = join(dir, ".git");
    const info = await lstat(dotGit);
    if (!info || info.isSymlink) {
      // Missing: a `git init` in the sandbox does not stay. A link: guarded, and the git
      // directory it leads to is covered below like any other.
      await protect(dotGit, true);
      if (!info) continue;
    } else if (info.isFile) {
      // A `gitdir:` pointer (worktree, submodule): the pointer and what it points to.
      plan.readOnly.push(dotGit);
      seen.add(dotGit);
    }
    const gitDir = await gitDirOf(ws, dotGit);
    if (gitDir) await protectGitDir(gitDir, 0);
    // Where the config sends git for hooks (`core.hooksPath`, e.g. `.husky`) and includes.
    // The git directory itself stays writable: commits write there.
    for (const target of await controlTargets(dir, on)) {
      if (target !== gitDir) await protect(target);
    }
  }
  return plan;
}

/** The git directory `.git` stands for: itself, a link's target or a `gitdir:` file's. */
async function gitDirOf(ws: Workspace, dotGit: string): Promise<string | undefined> {
  const on = { workspace: ws };
  const real = await canonicalPath(dotGit, on);
  const info = await ws.stat(real).catch(() => undefined);
  if (info?.isDirectory) return real;
  if (!info?.isFile) return undefined;
  const text = (await readText(ws, real)) ?? "";
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!match) return undefined;
  const dir = await canonicalPath(resolve(dirname(dotGit), match[1]), on);
  return (await ws.stat(dir).catch(() => undefined))?.isDirectory ? dir : undefined;
}

/**
 * Restores every guarded path after the command: removes what was created, puts a changed
 * link back. Returns one note per restored path, naming it relative to `root`.
 */
export async function settleGuards(
  guards: readonly Guard[],
  root: string,
  opts: ControlOptions = {},
): Promise<string[]> {
  const ws = opts.workspace ?? localWorkspace();
  const lstat = lstatOn(ws);
  const notes: string[] = [];
  for (const guard of guards) {
    const info = await lstat(guard.path);
    const unchanged = guard.was.kind === "missing"
      ? info === undefined
      : info?.isSymlink === true &&
        (await ws.readLink(guard.path).catch(() => undefined)) === guard.was.target;
    if (unchanged) continue;
    const shown = relative(root, guard.path) || guard.path;
    const parent = dirname(guard.path);
    // Undo only in the directory that was checked: never through a parent swapped for a link.
    if ((await canonicalPath(parent, { workspace: ws })) !== parent) {
      notes.push(
        `[${shown} changed and its parent directory was replaced, so it was not restored; ` +
          "check it before running Reasonix or git here again]",
      );
      continue;
    }
    if (info) await ws.remove(guard.path, { recursive: true });
    if (guard.was.kind === "link") await ws.symlink(guard.was.target, guard.path);
    notes.push(
      `[${shown} was ${guard.was.kind === "missing" ? "created" : "changed"} by the command and ` +
        `has been ${guard.was.kind === "missing" ? "removed" : "restored"}: sandboxed ` +
        "commands may not change the project's control files (reasonix.toml, .mcp.json, .env, " +
        ".reasonix/, .git hooks, config and the .git directory itself); ask the user to make " +
        "this change]",
    );
  }
  return notes;
}
