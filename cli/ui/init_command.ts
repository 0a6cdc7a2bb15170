/**
 * `/init`: drafts an `AGENTS.md` from what the repository declares — its languages (by file
 * extension), and the build, test and lint commands of `deno.json` tasks, `package.json`
 * scripts, `Makefile` targets, `Cargo.toml`, `go.mod` and `pyproject.toml` — for the user to
 * edit. The user typing `/init` is the approval for writing that one file at the workspace
 * root; an existing `AGENTS.md` is replaced only after the user picks "Replace" (see
 * docs/INTERACTIVE.md). Nothing is sent to the model.
 *
 * @module
 */
import { join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { atomicWrite } from "../../tools/fs/mod.ts";
import { isNotFound } from "../../tools/workspace/errors.ts";
import type { Workspace } from "../../tools/workspace/types.ts";

/** The file `/init` writes, at the workspace root. */
export const AGENTS_FILE = "AGENTS.md";

/** One command the repository declares. */
export interface RepoCommand {
  /** What to type, e.g. `deno task test`. */
  run: string;
  /** Where it was found, e.g. `deno.json`. */
  from: string;
  /** What kind of command it looks like. */
  kind: "build" | "test" | "lint" | "format" | "run" | "other";
}

/** What `/init` found in a repository. */
export interface RepoFacts {
  /** Languages by number of files, most first. */
  languages: { name: string; files: number }[];
  /** Manifests found at the root, e.g. `deno.json`, `package.json`. */
  manifests: string[];
  commands: RepoCommand[];
  /** Instruction files that already exist (`REASONIX.md`, `CLAUDE.md`, …). */
  instructionFiles: string[];
}

const LANGUAGES: Record<string, string> = {
  ts: "TypeScript",
  tsx: "TypeScript",
  mts: "TypeScript",
  cts: "TypeScript",
  js: "JavaScript",
  jsx: "JavaScript",
  mjs: "JavaScript",
  cjs: "JavaScript",
  py: "Python",
  rs: "Rust",
  go: "Go",
  java: "Java",
  kt: "Kotlin",
  swift: "Swift",
  c: "C",
  h: "C",
  cc: "C++",
  cpp: "C++",
  hpp: "C++",
  cs: "C#",
  rb: "Ruby",
  php: "PHP",
  scala: "Scala",
  sh: "Shell",
  lua: "Lua",
  zig: "Zig",
  ex: "Elixir",
  exs: "Elixir",
  dart: "Dart",
  vue: "Vue",
  svelte: "Svelte",
};

/** Directories never counted: dependencies, build output, caches, VCS. */
const SKIP_DIRS = new Set([
  ".git",
  "node_modules",
  "vendor",
  "target",
  "dist",
  "build",
  "out",
  ".venv",
  "venv",
  "__pycache__",
  ".next",
  ".cache",
  ".reasonix",
  "coverage",
]);
/** Enough files to know the languages; a huge tree is not walked to the end. */
const MAX_FILES = 5000;
const MAX_DEPTH = 6;

/** Guesses what a script or target name does. */
function kindOf(name: string): RepoCommand["kind"] {
  const n = name.toLowerCase();
  if (/(^|[:_-])(test|tests|spec|check:test)($|[:_-])/.test(n) || n === "test") return "test";
  if (/lint|clippy|vet/.test(n)) return "lint";
  if (/fmt|format|prettier/.test(n)) return "format";
  if (/build|compile|bundle/.test(n)) return "build";
  if (/^(start|dev|serve|run)$/.test(n)) return "run";
  return "other";
}

async function readText(ws: Workspace, path: string, signal?: AbortSignal) {
  try {
    return new TextDecoder().decode(await ws.readFile(path, { signal }));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
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

async function countLanguages(
  ws: Workspace,
  root: string,
  signal?: AbortSignal,
): Promise<{ name: string; files: number }[]> {
  const counts = new Map<string, number>();
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || seen >= MAX_FILES) return;
    const entries: { name: string; isFile: boolean; isDirectory: boolean }[] = [];
    try {
      for await (const e of ws.readDir(dir, { signal })) entries.push(e);
    } catch {
      return;
    }
    entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    for (const e of entries) {
      if (seen >= MAX_FILES) return;
      if (e.isDirectory) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) {
          await walk(join(dir, e.name), depth + 1);
        }
      } else if (e.isFile) {
        seen++;
        const ext = e.name.includes(".") ? e.name.slice(e.name.lastIndexOf(".") + 1) : "";
        const lang = LANGUAGES[ext.toLowerCase()];
        if (lang) counts.set(lang, (counts.get(lang) ?? 0) + 1);
      }
    }
  };
  await walk(root, 0);
  return [...counts].map(([name, files]) => ({ name, files }))
    .sort((a, b) => b.files - a.files || (a.name < b.name ? -1 : 1));
}

/** The package manager a Node project uses, by its lock file. */
async function nodeRunner(ws: Workspace, root: string): Promise<string> {
  if (await exists(ws, join(root, "pnpm-lock.yaml"))) return "pnpm";
  if (await exists(ws, join(root, "yarn.lock"))) return "yarn";
  if (
    await exists(ws, join(root, "bun.lockb")) || await exists(ws, join(root, "bun.lock"))
  ) return "bun run";
  return "npm run";
}

function makeTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of text.split("\n")) {
    // `name: deps`, not `VAR := x`, `.PHONY:`, pattern rules or indented recipe lines.
    const m = /^([A-Za-z0-9][\w.-]*)\s*:(?![=:])/.exec(line);
    if (m && !targets.includes(m[1])) targets.push(m[1]);
  }
  return targets;
}

/** Reads what the repository at `root` declares. Missing files are skipped; never writes. */
export async function scanRepository(
  root: string,
  opts: { workspace: Workspace; signal?: AbortSignal },
): Promise<RepoFacts> {
  const ws = opts.workspace;
  const signal = opts.signal;
  const manifests: string[] = [];
  const commands: RepoCommand[] = [];
  const add = (from: string, run: string, name: string) =>
    commands.push({ run, from, kind: kindOf(name) });

  for (const name of ["deno.json", "deno.jsonc"]) {
    const text = await readText(ws, join(root, name), signal);
    if (text === undefined) continue;
    manifests.push(name);
    const tasks = (parseJsonc(text) as { tasks?: Record<string, unknown> } | undefined)?.tasks;
    for (const task of Object.keys(tasks ?? {})) add(name, `deno task ${task}`, task);
    break;
  }
  const pkg = await readText(ws, join(root, "package.json"), signal);
  if (pkg !== undefined) {
    manifests.push("package.json");
    const scripts = (parseJsonc(pkg) as { scripts?: Record<string, unknown> } | undefined)
      ?.scripts;
    const runner = await nodeRunner(ws, root);
    for (const script of Object.keys(scripts ?? {})) {
      add("package.json", `${runner} ${script}`, script);
    }
  }
  for (const name of ["Makefile", "makefile", "GNUmakefile"]) {
    const text = await readText(ws, join(root, name), signal);
    if (text === undefined) continue;
    manifests.push(name);
    for (const target of makeTargets(text)) add(name, `make ${target}`, target);
    break;
  }
  if ((await readText(ws, join(root, "Cargo.toml"), signal)) !== undefined) {
    manifests.push("Cargo.toml");
    add("Cargo.toml", "cargo build", "build");
    add("Cargo.toml", "cargo test", "test");
    add("Cargo.toml", "cargo clippy", "lint");
    add("Cargo.toml", "cargo fmt", "fmt");
  }
  const goMod = await readText(ws, join(root, "go.mod"), signal);
  if (goMod !== undefined) {
    manifests.push("go.mod");
    add("go.mod", "go build ./...", "build");
    add("go.mod", "go test ./...", "test");
    add("go.mod", "go vet ./...", "vet");
  }
  const pyproject = await readText(ws, join(root, "pyproject.toml"), signal);
  if (pyproject !== undefined) {
    manifests.push("pyproject.toml");
    let doc: Record<string, unknown> = {};
    try {
      doc = parseToml(pyproject) as Record<string, unknown>;
    } catch {
      // A broken pyproject still says the project is Python; the commands stay generic.
    }
    const tool = (doc.tool ?? {}) as Record<string, unknown>;
    const prefix = tool.poetry
      ? "poetry run "
      : (await exists(ws, join(root, "uv.lock")))
      ? "uv run "
      : "";
    const text = pyproject;
    if (tool.pytest || /\bpytest\b/.test(text)) add("pyproject.toml", `${prefix}pytest`, "test");
    if (tool.ruff || /\bruff\b/.test(text)) {
      add("pyproject.toml", `${prefix}ruff check .`, "lint");
      add("pyproject.toml", `${prefix}ruff format .`, "format");
    }
    if (tool.mypy || /\bmypy\b/.test(text)) add("pyproject.toml", `${prefix}mypy .`, "lint");
    const scripts = ((doc.project as Record<string, unknown> | undefined)?.scripts ?? {}) as Record<
      string,
      unknown
    >;
    for (const script of Object.keys(scripts)) add("pyproject.toml", `${prefix}${script}`, script);
  }
  const instructionFiles: string[] = [];
  for (const name of ["REASONIX.md", AGENTS_FILE, "CLAUDE.md"]) {
    if (await exists(ws, join(root, name))) instructionFiles.push(name);
  }
  return {
    languages: await countLanguages(ws, root, signal),
    manifests,
    commands,
    instructionFiles,
  };
}

const SECTIONS: { kind: RepoCommand["kind"]; title: string }[] = [
  { kind: "build", title: "Build" },
  { kind: "test", title: "Test" },
  { kind: "lint", title: "Lint" },
  { kind: "format", title: "Format" },
  { kind: "run", title: "Run" },
  { kind: "other", title: "Other tasks" },
];

/** The draft `AGENTS.md` for `facts`: plain Markdown with placeholders for what only people know. */
export function agentsMarkdown(facts: RepoFacts, opts: { name?: string } = {}): string {
  const out: string[] = [`# ${opts.name ? `${opts.name}: ` : ""}notes for coding agents`, ""];
  out.push(
    "<!-- Drafted by `reasonix /init` from the files of this repository. Edit it: agents " +
      "(Reasonix, Codex, Claude Code and others) read it at the start of every session. -->",
    "",
  );
  out.push("## Project", "");
  if (facts.languages.length) {
    const langs = facts.languages.slice(0, 5).map((l) =>
      `${l.name} (${l.files} file${l.files === 1 ? "" : "s"})`
    );
    out.push(`- Languages: ${langs.join(", ")}.`);
  } else {
    out.push("- Languages: none recognised yet.");
  }
  if (facts.manifests.length) {
    out.push(`- Build files: ${facts.manifests.map((m) => `\`${m}\``).join(", ")}.`);
  }
  out.push("- What it does: _(one or two sentences)_", "");
  out.push("## Commands", "");
  if (!facts.commands.length) {
    out.push("_No build or test commands were found; add the ones you use._", "");
  }
  for (const section of SECTIONS) {
    const list = facts.commands.filter((c) => c.kind === section.kind);
    if (!list.length) continue;
    out.push(`### ${section.title}`, "");
    for (const c of list) out.push(`- \`${c.run}\` (${c.from})`);
    out.push("");
  }
  out.push(
    "## Conventions",
    "",
    "- Code style, naming and layout rules: _(fill in)_",
    "- Run the tests before saying a change is done.",
    "- Things an agent must not touch: _(generated files, vendored code, secrets)_",
    "",
  );
  return out.join("\n");
}

/** What `/init` did or needs. */
export type InitOutcome =
  | { kind: "written"; path: string; replaced: boolean; facts: RepoFacts }
  /** `AGENTS.md` exists and the user has not said to replace it. */
  | { kind: "exists"; path: string }
  /** The mode writes nothing: the draft is shown instead. */
  | { kind: "read_only"; text: string };

/**
 * Drafts and writes `AGENTS.md` at `root`. An existing file is left alone unless `replace`
 * (the user chose it); in a read-only permission mode nothing is written and the draft is
 * returned instead.
 */
export async function runInit(opts: {
  root: string;
  workspace: Workspace;
  replace?: boolean;
  readOnly?: boolean;
  signal?: AbortSignal;
}): Promise<InitOutcome> {
  const path = join(opts.root, AGENTS_FILE);
  const present = await exists(opts.workspace, path);
  if (present && !opts.replace) return { kind: "exists", path };
  const facts = await scanRepository(opts.root, opts);
  const name = opts.root.split(/[\\/]/).filter(Boolean).at(-1);
  const text = agentsMarkdown(facts, { name });
  if (opts.readOnly) return { kind: "read_only", text };
  await atomicWrite(path, new TextEncoder().encode(text), {
    workspace: opts.workspace,
    signal: opts.signal,
  });
  return { kind: "written", path, replaced: present, facts };
}
