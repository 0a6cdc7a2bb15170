/**
 * Enforces the dependency direction of DESIGN.md / spec §2:
 * `cli → {core, plugins} → {tools, providers}`, with `remote` below `cli`.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Top-level areas each area may import from (besides itself, npm:, node: and errors.ts). */
const ALLOWED: Record<string, string[]> = {
  "errors.ts": [],
  providers: [],
  tools: ["providers/types.ts"],
  core: ["tools", "providers"],
  plugins: ["tools", "providers"],
  remote: ["tools", "providers"],
  cli: ["core", "plugins", "remote", "tools", "providers"],
  // The library surface: never the command line.
  "mod.ts": ["core", "plugins", "remote", "tools", "providers"],
  "builtins.ts": ["providers", "tools"],
  // Published test helpers (`./testing`): the fake LLM server needs nothing of Reasonix.
  testing: ["providers/types.ts"],
};

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(".") || entry.name === "node_modules" || entry.name === "dist") {
      continue;
    }
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

function area(rel: string): string {
  return rel.includes("/") ? rel.split("/")[0] : rel;
}

Deno.test("imports follow the layer direction", async () => {
  const violations: string[] = [];
  for await (const file of sourceFiles(ROOT)) {
    const rel = relative(ROOT, file);
    const from = area(rel);
    if (from === "tests" || !(from in ALLOWED)) continue;
    if (/_test\.tsx?$/.test(rel) || rel.includes("/testing")) continue;
    const text = await Deno.readTextFile(file);
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1];
      if (!spec.startsWith(".")) continue;
      const target = relative(ROOT, resolve(dirname(file), spec));
      const to = area(target);
      if (to === from || target === "errors.ts") continue;
      const ok = ALLOWED[from].some((allowed) => target === allowed || to === allowed);
      if (!ok) violations.push(`${rel} imports ${target}`);
    }
  }
  assert.deepEqual(violations, [], `layer violations:\n${violations.join("\n")}`);
});

/** Whether `dir` or any folder below it holds TypeScript sources. */
async function holdsSources(dir: string): Promise<boolean> {
  for await (const _ of sourceFiles(dir)) return true;
  return false;
}

Deno.test("every source folder has a mod.ts", async () => {
  const missing: string[] = [];
  async function visit(dir: string): Promise<void> {
    if (!await holdsSources(dir)) return;
    try {
      await Deno.stat(join(dir, "mod.ts"));
    } catch {
      missing.push(relative(ROOT, dir));
    }
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory && !entry.name.startsWith(".")) await visit(join(dir, entry.name));
    }
  }
  for (const top of ["cli", "core", "plugins", "providers", "remote", "testing", "tools"]) {
    await visit(join(ROOT, top));
  }
  assert.deepEqual(missing, [], `folders without a mod.ts:\n${missing.join("\n")}`);
});

/** The relative imports of every non-test source file, as repository paths. */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for await (const file of sourceFiles(ROOT)) {
    const rel = relative(ROOT, file);
    if (area(rel) === "tests" || /_test\.tsx?$/.test(rel)) continue;
    const targets: string[] = [];
    for (const match of (await Deno.readTextFile(file)).matchAll(IMPORT)) {
      if (match[1].startsWith(".")) targets.push(relative(ROOT, resolve(dirname(file), match[1])));
    }
    graph.set(rel, targets);
  }
  return graph;
}

/** One cycle per strongly connected group of files, found by depth-first search. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

Deno.test("no source file imports itself through a cycle, type-only imports included", async () => {
  const found = cycles(await importGraph()).map((c) => c.join(" → "));
  assert.deepEqual(found, [], `import cycles:\n${found.join("\n")}`);
});

/** What is left of a module once comments, imports and re-exports are removed. */
function nonReexports(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "")
    .replace(
      /\b(?:import|export)\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\}|\w+(?:\s*,\s*\{[^}]*\})?)\s+from\s*["'][^"']+["']\s*;/g,
      "",
    )
    .replace(/\bimport\s*["'][^"']+["']\s*;/g, "")
    .replace(/\bexport\s+(?:type\s+)?\{[^}]*\}\s*;/g, "")
    .trim();
}

Deno.test("every mod.ts holds only imports, re-exports and doc comments", async () => {
  const offenders: string[] = [];
  const check = async (file: string) => {
    const rest = nonReexports(await Deno.readTextFile(file));
    if (rest) offenders.push(`${relative(ROOT, file)}: ${rest.split("\n")[0]}`);
  };
  await check(join(ROOT, "mod.ts"));
  for (const top of ["cli", "core", "plugins", "providers", "remote", "testing", "tools"]) {
    for await (const file of sourceFiles(join(ROOT, top))) {
      if (file.endsWith("/mod.ts")) await check(file);
    }
  }
  assert.deepEqual(offenders, [], `mod.ts files with code of their own:\n${offenders.join("\n")}`);
});

Deno.test("the mod.ts check sees code and passes re-exports", () => {
  assert.equal(
    nonReexports(
      '/** Doc. */\nimport "./a.ts";\nexport { a, type B } from "./a.ts";\n' +
        'export type * from "./t.ts";\nimport { c } from "./c.ts";\nexport { c };\n',
    ),
    "",
  );
  assert.equal(nonReexports('export { a } from "./a.ts";\nregister(a);\n'), "register(a);");
  assert.equal(
    nonReexports("export function setup(): void {}\n"),
    "export function setup(): void {}",
  );
});
