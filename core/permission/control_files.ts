/**
 * The project's control files: files that Reasonix or git read at the next start and act on
 * (MCP servers to launch, rules, custom commands, environment for expansion, git hooks and
 * configuration). A write to one plants persistence, so outside `yolo` it always needs a
 * person's approval (spec §3.7; issue 11, deliverable 4).
 *
 * Control files are recognised by name at any depth — a nested project's `.mcp.json` is a
 * control file the moment Reasonix is started there — and by where the workspace's own control
 * entries really point: a `.mcp.json` symlink, a `.git` file naming another git directory, and
 * the hooks directory and included files that `.git/config` names (`core.hooksPath`, e.g.
 * `.husky`, and `[include] path`).
 *
 * `.env` is protected, `.env.*` is not: Reasonix loads only `.env` (for project-level
 * expansion); `.env.local` and the like are read by other programs at build time, like
 * `package.json` scripts, and `.env.example` is an ordinary file agents are asked to write.
 *
 * @module
 */
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { canonicalPath } from "./confine.ts";
import { isWithin } from "../../tools/paths.ts";
import { localWorkspace } from "../../tools/workspace/local.ts";
import type { Workspace } from "../../tools/workspace/types.ts";

/** File names that are control files wherever they are. */
const CONTROL_NAMES: ReadonlySet<string> = new Set(["reasonix.toml", ".mcp.json", ".env"]);
/** Directory names whose whole tree is control files wherever they are (`.git` may be a file). */
const CONTROL_DIRS: ReadonlySet<string> = new Set([".reasonix", ".git"]);

/** What the user is told is protected, for messages and docs. */
export const CONTROL_FILES_SUMMARY =
  "reasonix.toml, .mcp.json, .env, .reasonix/ and .git/ at any depth, and the hook and " +
  "include paths .git/config names";

/**
 * The name a case-insensitive file system would treat as `name`: case folded (with Unicode
 * compatibility forms such as the Kelvin sign), and without the trailing dots and spaces and
 * `:stream` suffix Windows ignores. Over-folding on a case-sensitive system only asks more.
 */
function fold(name: string): string {
  const base = name.split(":")[0];
  return base.normalize("NFKC").toLowerCase().replace(/[. ]+$/, "");
}

const FOLDED_NAMES = new Set([...CONTROL_NAMES].map(fold));
const FOLDED_DIRS = new Set([...CONTROL_DIRS].map(fold));

/**
 * Why the canonical absolute `path` is a control file — the control entry it is or lies in,
 * e.g. `.mcp.json` or `.git/` — or undefined. `targets` are extra protected trees (from
 * {@linkcode controlTargets}).
 */
export function controlFileOf(
  path: string,
  targets: readonly string[] = [],
): string | undefined {
  const parts = path.split(sep === "/" ? "/" : /[\\/]/);
  for (let i = 0; i < parts.length; i++) {
    const name = fold(parts[i]);
    if (FOLDED_DIRS.has(name)) return `${parts[i]}/`;
    if (i === parts.length - 1 && FOLDED_NAMES.has(name)) return parts[i];
  }
  const target = targets.find((t) => isWithin(t, path));
  return target === undefined ? undefined : target;
}

async function readText(ws: Workspace, path: string): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await ws.readFile(path));
  } catch {
    return undefined;
  }
}

/** `core.hooksPath` and `[include] path` values of a git config file. */
function gitConfigPaths(text: string): { hooks: string[]; includes: string[] } {
  const hooks: string[] = [];
  const includes: string[] = [];
  let section = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/[#;].*$/, "").trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (header) {
      section = header[1].toLowerCase();
      continue;
    }
    const kv = /^([A-Za-z0-9-]+)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    const key = kv[1].toLowerCase();
    const value = kv[2].replace(/^"(.*)"$/, "$1").trim();
    if (value === "") continue;
    if (section === "core" && key === "hookspath") hooks.push(value);
    if ((section === "include" || section === "includeif") && key === "path") {
      includes.push(value);
    }
  }
  return { hooks, includes };
}

/**
 * Where the workspace's control entries really are, when that is not their own name: the
 * targets of symlinked control entries at the root, the git directory a `.git` file names, and
 * the hooks directory and included config files its git config names. Paths are canonical;
 * unreadable or missing entries are skipped (they cannot redirect anything).
 */
export async function controlTargets(
  root: string,
  opts: { workspace?: Workspace } = {},
): Promise<string[]> {
  const ws = opts.workspace ?? localWorkspace();
  const on = { workspace: ws };
  const out = new Set<string>();
  const add = async (path: string) => {
    try {
      const real = await canonicalPath(path, on);
      if (real !== path) out.add(real);
    } catch {
      // A link loop leads nowhere a write could land.
    }
  };
  for (const name of [...CONTROL_NAMES, ...CONTROL_DIRS]) await add(join(root, name));

  let gitDir = join(root, ".git");
  const info = await ws.lstat(gitDir).catch(() => undefined);
  if (info?.isFile) {
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec((await readText(ws, gitDir)) ?? "");
    if (pointer) {
      gitDir = resolve(root, pointer[1]);
      out.add(await canonicalPath(gitDir, on).catch(() => gitDir));
    }
  }
  const config = await readText(ws, join(gitDir, "config"));
  if (config !== undefined) {
    const { hooks, includes } = gitConfigPaths(config);
    for (const hook of hooks) {
      if (hook.startsWith("~")) continue;
      const path = isAbsolute(hook) ? hook : resolve(root, hook);
      out.add(await canonicalPath(path, on).catch(() => path));
    }
    for (const include of includes) {
      if (include.startsWith("~")) continue;
      const path = isAbsolute(include) ? include : resolve(gitDir, include);
      out.add(await canonicalPath(path, on).catch(() => path));
    }
  }
  // The workspace itself is never a control target (a root named `.git` would be absurd).
  out.delete(root);
  for (const t of [...out]) if (isWithin(t, root) || t === dirname(t)) out.delete(t);
  return [...out];
}
