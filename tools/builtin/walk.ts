/**
 * The built-in file walker behind `glob` and `grep` when ripgrep is not installed. It follows
 * ripgrep's rules so both engines return the same files: hidden files included, `.git`
 * skipped, symlinks not followed, entries visited in name order, and ignore files honoured
 * with ripgrep's precedence (`.rgignore` > `.ignore` > `.gitignore` > `.git/info/exclude`;
 * git files only inside a git repository, up to its root; deeper directories win).
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import picomatch from "picomatch";
import { toPosix } from "../paths.ts";
import type { DirEntry, Workspace } from "../workspace/types.ts";

/** What a gitignore-style matcher says about one path. */
export type IgnoreMatch = "ignore" | "whitelist" | undefined;

/** Matches paths (relative, `/`-separated) against gitignore lines; the last match wins. */
export type GitignoreMatcher = (rel: string, isDir: boolean) => IgnoreMatch;

interface Rule {
  negative: boolean;
  dirOnly: boolean;
  test: (rel: string) => boolean;
}

/**
 * Compiles one gitignore line. A line without a `/` (other than a trailing one) matches at
 * any depth; a leading or inner `/` anchors it to the file's directory. Like ripgrep (and
 * unlike git), `{a,b}` alternatives are supported.
 */
function compileLine(raw: string): Rule | undefined {
  let line = raw.replace(/(?<!\\)[ \t]+$/, "");
  if (line === "" || line.startsWith("#")) return undefined;
  let negative = false;
  if (line.startsWith("!")) {
    negative = true;
    line = line.slice(1);
  } else if (line.startsWith("\\!") || line.startsWith("\\#")) {
    line = line.slice(1);
  }
  let dirOnly = false;
  if (line.endsWith("/")) {
    dirOnly = true;
    line = line.slice(0, -1);
  }
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  if (line === "") return undefined;
  const glob = bangClasses(line);
  const test = picomatch(anchored ? glob : `**/${glob}`, { dot: true, noextglob: true });
  return { negative, dirOnly, test };
}

/**
 * Rewrites negated classes `[!...]` (gitignore and ripgrep syntax) as `[^...]`, which is the
 * form picomatch understands; it reads `[!a]` as "`!` or `a`".
 */
export function bangClasses(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "\\") {
      out += glob.slice(i, i + 2);
      i++;
    } else if (c === "[") {
      const end = classEnd(glob, i);
      if (end === -1) return out + glob.slice(i);
      const body = glob.slice(i + 1, end);
      out += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`;
      i = end;
    } else {
      out += c;
    }
  }
  return out;
}

/** Index of the `]` closing the class that opens at `start`, or -1 when it is unclosed. */
function classEnd(glob: string, start: number): number {
  let j = start + 1;
  if (glob[j] === "!" || glob[j] === "^") j++;
  if (glob[j] === "]") j++;
  const end = glob.indexOf("]", j);
  return end;
}

/**
 * Why `glob` is not a valid glob in ripgrep's syntax, or undefined when it is. Both engines
 * check with this, so an invalid glob is an error either way (the built-in matcher would
 * otherwise read it literally and match nothing).
 */
export function globSyntaxError(glob: string): string | undefined {
  const body = glob.startsWith("!") ? glob.slice(1) : glob;
  let open = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") {
      if (i === body.length - 1) return "dangling '\\' at the end";
      i++;
    } else if (c === "[") {
      const end = classEnd(body, i);
      if (end === -1) return "unclosed character class; missing ']'";
      const inner = body.slice(i + 1, end).replace(/^[!^]/, "");
      for (let k = 1; k < inner.length - 1; k++) {
        if (inner[k] === "-" && inner[k - 1] > inner[k + 1]) {
          return `invalid range; '${inner[k - 1]}' > '${inner[k + 1]}'`;
        }
      }
      i = end;
    } else if (c === "{") {
      if (open) return "nested alternate groups are not allowed";
      open = true;
    } else if (c === "}") {
      open = false;
    }
  }
  return open ? "unclosed alternate group; missing '}' (escape '{' as [{] to match it)" : undefined;
}

/** Compiles the text of an ignore file (or a single override glob). */
export function compileGitignore(text: string): GitignoreMatcher {
  const rules = text.split(/\r?\n/).map(compileLine).filter((r): r is Rule => r !== undefined);
  return (rel, isDir) => {
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i];
      if (rule.dirOnly && !isDir) continue;
      if (rule.test(rel)) return rule.negative ? "whitelist" : "ignore";
    }
    return undefined;
  };
}

/** A user's file filter (the `glob` argument of `glob` and `grep`). */
export interface GlobFilter {
  /** Whether a file, given relative to the searched directory, passes. */
  file(rel: string): boolean;
  /** Whether a walk may skip a directory because no file under it can pass. */
  skipDir(rel: string): boolean;
  /**
   * ripgrep flags that narrow its walk to a superset of the files `file` accepts, so results
   * are always post-filtered with `file` and both engines agree by construction.
   */
  ripgrepArgs: string[];
}

/**
 * Compiles a user glob with gitignore-style syntax: without `/` it matches file names at any
 * depth, with `/` it is anchored to the searched directory; `!glob` excludes matching files
 * and directories. Unlike ripgrep's `--glob`, it never re-includes files that ignore files
 * exclude: it only narrows the walk.
 */
export function globFilter(glob: string): GlobFilter {
  const negated = glob.startsWith("!");
  const body = negated ? glob.slice(1) : glob;
  const matcher = compileGitignore(body);
  const hit = (rel: string, isDir: boolean): boolean => matcher(rel, isDir) === "ignore";
  if (negated) {
    return {
      file(rel) {
        if (hit(rel, false)) return false;
        for (let at = rel.indexOf("/"); at !== -1; at = rel.indexOf("/", at + 1)) {
          if (hit(rel.slice(0, at), true)) return false;
        }
        return true;
      },
      skipDir: (rel) => hit(rel, true),
      ripgrepArgs: [],
    };
  }
  // A file-name glob maps onto a ripgrep file type, which (unlike --glob) honours ignore files.
  const name = body.replace(/^\*\*\//, "");
  const byName = !name.includes("/") && !name.includes(":") && !name.startsWith("!");
  return {
    file: (rel) => hit(rel, false),
    skipDir: () => false,
    ripgrepArgs: byName ? ["--type-add", `reasonixglob:${name}`, "--type", "reasonixglob"] : [],
  };
}

interface Layer {
  dir: string;
  custom?: GitignoreMatcher;
  dot?: GitignoreMatcher;
  git?: GitignoreMatcher;
  exclude?: GitignoreMatcher;
  hasGit: boolean;
}

const utf8 = new TextDecoder();

async function readText(ws: Workspace, path: string): Promise<string | undefined> {
  try {
    return utf8.decode(await ws.readFile(path));
  } catch {
    return undefined;
  }
}

async function exists(ws: Workspace, path: string): Promise<boolean> {
  try {
    await ws.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function loadLayer(ws: Workspace, dir: string): Promise<Layer | undefined> {
  const [custom, dot, git, hasGit] = await Promise.all([
    readText(ws, join(dir, ".rgignore")),
    readText(ws, join(dir, ".ignore")),
    readText(ws, join(dir, ".gitignore")),
    exists(ws, join(dir, ".git")),
  ]);
  const exclude = hasGit ? await readText(ws, join(dir, ".git", "info", "exclude")) : undefined;
  if (custom === undefined && dot === undefined && git === undefined && !hasGit) return undefined;
  return {
    dir,
    custom: custom === undefined ? undefined : compileGitignore(custom),
    dot: dot === undefined ? undefined : compileGitignore(dot),
    git: git === undefined ? undefined : compileGitignore(git),
    exclude: exclude === undefined ? undefined : compileGitignore(exclude),
    hasGit,
  };
}

/** The ignore files that apply at one directory: its own and its ancestors'. */
export class IgnoreRules {
  readonly #layers: readonly Layer[];
  readonly #ws: Workspace;

  private constructor(ws: Workspace, layers: readonly Layer[]) {
    this.#ws = ws;
    this.#layers = layers;
  }

  /** Rules for a walk starting at `root`, including ignore files of every ancestor. */
  static async forRoot(root: string, ws: Workspace): Promise<IgnoreRules> {
    const dirs: string[] = [];
    for (let dir = root;; dir = dirname(dir)) {
      dirs.unshift(dir);
      if (dirname(dir) === dir) break;
    }
    const layers = await Promise.all(dirs.map((dir) => loadLayer(ws, dir)));
    return new IgnoreRules(ws, layers.filter((l): l is Layer => l !== undefined));
  }

  /** Rules inside subdirectory `dir`. */
  async child(dir: string): Promise<IgnoreRules> {
    const layer = await loadLayer(this.#ws, dir);
    return layer ? new IgnoreRules(this.#ws, [...this.#layers, layer]) : this;
  }

  /** Whether ignore files exclude the absolute path `path`. */
  isIgnored(path: string, isDir: boolean): boolean {
    let custom: IgnoreMatch;
    let dot: IgnoreMatch;
    let git: IgnoreMatch;
    let exclude: IgnoreMatch;
    const inRepo = this.#layers.some((l) => l.hasGit);
    let sawGit = false;
    for (let i = this.#layers.length - 1; i >= 0; i--) {
      const layer = this.#layers[i];
      const rel = toPosix(relative(layer.dir, path));
      custom ??= layer.custom?.(rel, isDir);
      dot ??= layer.dot?.(rel, isDir);
      if (inRepo && !sawGit) {
        git ??= layer.git?.(rel, isDir);
        exclude ??= layer.exclude?.(rel, isDir);
      }
      sawGit ||= layer.hasGit;
    }
    return (custom ?? dot ?? git ?? exclude) === "ignore";
  }
}

/** A file found by {@linkcode walkFiles}. */
export interface WalkedFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the walk root, `/`-separated. */
  rel: string;
}

/** Options of {@linkcode walkFiles}. */
export interface WalkOptions {
  /** Where the files are. */
  workspace: Workspace;
  signal: AbortSignal;
  /** Told about each directory that cannot be listed (it is skipped, like ripgrep does). */
  onUnreadable?(path: string, error: unknown): void;
  /** Only files this filter accepts are yielded. */
  filter?: GlobFilter;
}

function byName(a: DirEntry, b: DirEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Yields the regular files under `root` in ripgrep's sorted order. Unreadable directories are
 * skipped. Throws the signal's reason when aborted.
 */
export async function* walkFiles(root: string, opts: WalkOptions): AsyncGenerator<WalkedFile> {
  const rules = await IgnoreRules.forRoot(root, opts.workspace);
  yield* walkDir({ dir: root, rel: "", rules }, opts);
}

async function* walkDir(
  at: { dir: string; rel: string; rules: IgnoreRules },
  opts: WalkOptions,
): AsyncGenerator<WalkedFile> {
  const { dir, rel, rules } = at;
  opts.signal.throwIfAborted();
  const entries: DirEntry[] = [];
  try {
    for await (const entry of opts.workspace.readDir(dir)) entries.push(entry);
  } catch (error) {
    opts.onUnreadable?.(dir, error);
    return;
  }
  entries.sort(byName);
  for (const entry of entries) {
    opts.signal.throwIfAborted();
    if (entry.name === ".git" || entry.isSymlink) continue;
    const path = join(dir, entry.name);
    const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory) {
      if (opts.filter?.skipDir(childRel) || rules.isIgnored(path, true)) continue;
      yield* walkDir({ dir: path, rel: childRel, rules: await rules.child(path) }, opts);
    } else if (entry.isFile) {
      if (opts.filter && !opts.filter.file(childRel)) continue;
      if (!rules.isIgnored(path, false)) yield { path, rel: childRel };
    }
  }
}
