/**
 * The delegation experiment's task corpus (spec §3.17): small tasks shaped like the spec's four
 * — independent one-line changes in three modules, a 24-file search, a multi-package migration,
 * three heterogeneous branches. Each task carries its repository, its prompt, how to check the
 * outcome, and a scripted "model" for the fake LLM server (the CI smoke run): it delegates one
 * branch per child when `task` is offered and does the same work itself when it is not.
 *
 * @module
 */

/** One unit of work a child (or the parent, without `task`) does in one response. */
export interface Branch {
  /** A word unique to this branch's child task. */
  name: string;
  /** The child's task text. */
  prompt: string;
  read_only?: boolean;
  write_paths?: string[];
  depends_on?: string[];
  /** Files the branch writes (path → content). */
  writes?: Record<string, string>;
  /** Files the branch reads. */
  reads?: string[];
}

/** A corpus task. */
export interface DelegationTask {
  name: string;
  /** The shape of the spec it stands for. */
  shape: string;
  prompt: string;
  files: Record<string, string>;
  /** The work split into branches (what the scripted model delegates). */
  branches: Branch[];
  /** Whether the run did the task (read from the repository afterwards). */
  check(read: (path: string) => string | undefined): boolean;
}

const MODULES = ["auth", "billing", "search"];

const oneLine: DelegationTask = {
  name: "three-modules",
  shape: "independent one-line changes in three modules",
  prompt: "In auth, billing and search, bump VERSION in mod.ts from 1 to 2.",
  files: Object.fromEntries(MODULES.map((m) => [`${m}/mod.ts`, "export const VERSION = 1;\n"])),
  branches: MODULES.map((m) => ({
    name: `module-${m}`,
    prompt: `module-${m}: set VERSION to 2 in ${m}/mod.ts`,
    write_paths: [m],
    writes: { [`${m}/mod.ts`]: "export const VERSION = 2;\n" },
  })),
  check: (read) => MODULES.every((m) => read(`${m}/mod.ts`)?.includes("VERSION = 2")),
};

const SEARCH_FILES = Array.from(
  { length: 24 },
  (_, i) => `src/f${String(i + 1).padStart(2, "0")}.ts`,
);

const search: DelegationTask = {
  name: "search-24",
  shape: "a search over 24 files",
  prompt: "Which files under src/ call legacyCall? Write the list to found.txt.",
  files: Object.fromEntries(
    SEARCH_FILES.map((f, i) => [f, i % 5 === 0 ? "legacyCall();\n" : "modern();\n"]),
  ),
  branches: [0, 1, 2].map((k): Branch => ({
    name: `slice-${k}`,
    prompt: `slice-${k}: read src files ${k * 8 + 1}-${k * 8 + 8} and list legacyCall callers`,
    read_only: true,
    reads: SEARCH_FILES.slice(k * 8, k * 8 + 8),
  })).concat([{
    name: "collect",
    prompt: "collect: write found.txt",
    write_paths: ["found.txt"],
    depends_on: ["slice-0", "slice-1", "slice-2"],
    writes: {
      "found.txt": SEARCH_FILES.filter((_, i) => i % 5 === 0).join("\n") + "\n",
    },
  }]),
  check: (read) => read("found.txt")?.trim().split("\n").length === 5,
};

const PACKAGES = ["pkg-a", "pkg-b", "pkg-c"];

const migration: DelegationTask = {
  name: "migration",
  shape: "a migration across three packages",
  prompt: "Replace oldApi( with newApi( in every file of pkg-a, pkg-b and pkg-c.",
  files: Object.fromEntries(
    PACKAGES.flatMap((p) => [1, 2, 3].map((n) => [`${p}/m${n}.ts`, `oldApi(${n});\n`])),
  ),
  branches: PACKAGES.map((p) => ({
    name: `migrate-${p}`,
    prompt: `migrate-${p}: replace oldApi( with newApi( in ${p}`,
    write_paths: [p],
    writes: Object.fromEntries([1, 2, 3].map((n) => [`${p}/m${n}.ts`, `newApi(${n});\n`])),
  })),
  check: (read) =>
    PACKAGES.every((p) => [1, 2, 3].every((n) => read(`${p}/m${n}.ts`)?.startsWith("newApi("))),
};

const branches: DelegationTask = {
  name: "three-branches",
  shape: "three heterogeneous branches",
  prompt: "Add clamp() to src/util.ts, a test for it in tests/, and a line about it in docs/.",
  files: { "src/util.ts": "export {};\n", "docs/README.md": "# Util\n", "tests/.keep": "" },
  branches: [
    {
      name: "code-branch",
      prompt: "code-branch: add clamp to src/util.ts",
      write_paths: ["src"],
      writes: {
        "src/util.ts":
          "export function clamp(x: number, lo: number, hi: number): number {\n  return Math.min(hi, Math.max(lo, x));\n}\n",
      },
    },
    {
      name: "test-branch",
      prompt: "test-branch: test clamp in tests/util_test.ts",
      write_paths: ["tests"],
      depends_on: ["code-branch"],
      writes: {
        "tests/util_test.ts": 'import { clamp } from "../src/util.ts";\nclamp(1, 0, 2);\n',
      },
    },
    {
      name: "docs-branch",
      prompt: "docs-branch: document clamp in docs/README.md",
      write_paths: ["docs"],
      writes: { "docs/README.md": "# Util\n\n`clamp(x, lo, hi)` bounds a number.\n" },
    },
  ],
  check: (read) =>
    (read("src/util.ts") ?? "").includes("clamp") && read("tests/util_test.ts") !== undefined &&
    (read("docs/README.md") ?? "").includes("clamp"),
};

/** The corpus, in the order the table lists it. */
export const CORPUS: readonly DelegationTask[] = [oneLine, search, migration, branches];
