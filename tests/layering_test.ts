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
  "mod.ts": ["core", "plugins", "remote", "tools", "providers", "cli/version.ts"],
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
  for (const top of ["cli", "core", "plugins", "providers", "remote", "tools"]) {
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
