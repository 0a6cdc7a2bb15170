/**
 * `deno task bundle`: builds the program as plain JavaScript into `dist/bundle/`, the form
 * `deno task install` puts on the PATH. Running from source, Deno resolves and loads some 160
 * TypeScript modules at every start; the bundle loads a handful of files, which takes tens of
 * milliseconds off every `reasonix run` (`deno task bench` measures both).
 *
 * Two passes: the entry alone, so `--version` loads one tiny file, then every lazily imported
 * module (`cli/lazy.ts`) with code splitting, mirroring the repository layout so the entry
 * finds them. Then {@link deferRequires} keeps commander from loading Node modules that only
 * its executable subcommands use, {@link lazyRequire} loads `node:module` only when
 * something calls `require`, and `latin1Source` keeps each file's source one byte per
 * character in V8.
 *
 * @module
 */
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LAZY_MODULES } from "../lazy.ts";
import { latin1Source } from "./latin1.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Where `deno task bundle` writes, relative to the repository root. */
export const BUNDLE_DIR = "dist/bundle";

/**
 * The `deno install` arguments of a launcher for the bundle in `dir`, with the flags of
 * `deno task reasonix`. The bundle's own deno.json is named, so no other configuration file
 * (a clone's, found from the working directory) is discovered or copied.
 */
export function installArgs(dir: string, name: string, runFlags: readonly string[]): string[] {
  return [
    "install",
    "-g",
    "-f",
    "-n",
    name,
    ...runFlags,
    "--config",
    join(dir, "deno.json"),
    bundleEntry(dir),
  ];
}

/** The bundled entry point inside a bundle directory. */
export function bundleEntry(dir: string): string {
  return join(dir, "cli", "main.js");
}

/**
 * Imports no build may resolve: ink loads React DevTools only when `DEV=true`, and the package
 * is not a dependency.
 */
const EXTERNAL = ["react-devtools-core"];

/**
 * The head of commander's `lib/command.js` as a bundle holds it, minified or not: its requires
 * of `node:events`, `node:child_process`, `node:path`, `node:fs` and `node:process`, in that
 * order, through one `require` function (`$1`).
 */
const COMMANDER_HEAD =
  /([\w$]+)\("node:events"\)\.EventEmitter[,;][^()]{0,40}?\1\("node:child_process"\)[,;][^()]{0,40}?\1\("node:path"\)[,;][^()]{0,40}?\1\("node:fs"\)/g;

/**
 * The modules commander requires at load time but uses only to launch executable
 * subcommands, which `reasonix` has none of. Deno's polyfills for the two cost some 10 ms of
 * CPU at every start of a command that parses with the tree.
 */
export const DEFERRED_REQUIRES: readonly string[] = ["node:child_process", "node:fs"];

/**
 * Rewrites commander's requires of {@link DEFERRED_REQUIRES} in a bundled file into proxies
 * that require the module on first use, so the behaviour stays the same if the code is ever
 * reached. Only commander's own head is touched ({@link COMMANDER_HEAD}). Returns the
 * rewritten text and how many requires were deferred.
 */
export function deferRequires(text: string): { text: string; deferred: number } {
  let deferred = 0;
  const rewritten = text.replace(COMMANDER_HEAD, (head: string, require: string) => {
    let out = head;
    for (const module of DEFERRED_REQUIRES) {
      const call = `${require}(${JSON.stringify(module)})`;
      out = out.replace(call, () => {
        deferred++;
        return `new Proxy({},{get:(_,key)=>${call}[key]})`;
      });
    }
    return out;
  });
  return { text: rewritten, deferred };
}

/** How Deno's bundler gives esbuild's CommonJS helpers their `require`. */
const EAGER_REQUIRE =
  'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
  "var __require = __deno_internal_createRequire(import.meta.url);";

/**
 * The same `require`, made on its first call. Loading `node:module` costs about 4 % of a
 * headless run's CPU and 0.7 MB of memory, and no module the run loads calls `require`.
 * `process.getBuiltinModule` loads a built-in synchronously, as `require` must.
 */
const LAZY_REQUIRE = "var __deno_internal_require;\n" +
  "var __require = (id) => (__deno_internal_require ??= globalThis.process\n" +
  '  .getBuiltinModule("node:module").createRequire(import.meta.url))(id);';

/**
 * esbuild's `__require` as a minified bundle holds it: the global `require` when one exists,
 * else an error. Deno's bundler gives minified helpers no {@link EAGER_REQUIRE}, and an ES
 * module has no global `require`, so every CommonJS `require` of a built-in would throw.
 */
const MINIFIED_SHIM = 'typeof require<"u"?require:';

/**
 * The `require` a minified helper chunk finds in its own scope: {@link LAZY_REQUIRE}'s, made
 * on its first call.
 */
const MINIFIED_REQUIRE = "var __deno_internal_require;var require=(id)=>(__deno_internal_require" +
  '??=globalThis.process.getBuiltinModule("node:module").createRequire(import.meta.url))(id);\n';

/**
 * Rewrites the eager `require` of esbuild's helpers ({@link EAGER_REQUIRE}) into a lazy one,
 * or gives the minified helpers ({@link MINIFIED_SHIM}) that lazy `require` to find.
 */
export function lazyRequire(text: string): { text: string; rewritten: boolean } {
  if (text.includes(EAGER_REQUIRE)) {
    return { text: text.replace(EAGER_REQUIRE, LAZY_REQUIRE), rewritten: true };
  }
  if (text.includes(MINIFIED_SHIM) && !text.includes(MINIFIED_REQUIRE)) {
    return { text: MINIFIED_REQUIRE + text, rewritten: true };
  }
  return { text, rewritten: false };
}

/** Applies {@link lazyRequire} to the bundle in `dir`, whose helpers are in one file. */
async function lazyBundleRequire(dir: string): Promise<void> {
  let rewritten = 0;
  for await (const file of scripts(dir)) {
    const result = lazyRequire(await Deno.readTextFile(file));
    if (!result.rewritten) continue;
    rewritten++;
    await Deno.writeTextFile(file, result.text);
  }
  if (rewritten !== 1) {
    throw new Error(
      `found the helpers' eager require in ${rewritten} files instead of one; Deno's bundled ` +
        "form changed (see EAGER_REQUIRE)",
    );
  }
}

/** The `.js` files under `dir`, recursively. */
async function* scripts(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* scripts(path);
    else if (entry.isFile && entry.name.endsWith(".js")) yield path;
  }
}

/** Applies {@link deferRequires} to the bundle in `dir`: commander's head must be there once. */
async function deferBundleRequires(dir: string): Promise<void> {
  let deferred = 0;
  for await (const file of scripts(dir)) {
    const result = deferRequires(await Deno.readTextFile(file));
    if (result.deferred === 0) continue;
    deferred += result.deferred;
    await Deno.writeTextFile(file, result.text);
  }
  if (deferred !== DEFERRED_REQUIRES.length) {
    throw new Error(
      `deferred ${deferred} of commander's ${DEFERRED_REQUIRES.length} load-time requires; ` +
        "its bundled form changed (see COMMANDER_HEAD)",
    );
  }
}

/**
 * Production mode: Deno's bundler defines `process.env.NODE_ENV` as `"production"` only for a
 * minified build (it has no `--define`), and React, its reconciler and the scheduler ship a
 * development build that costs the interactive UI some 40 % of its CPU. Names are kept: error
 * classes and the like stay recognizable in messages and stack traces.
 */
export const PRODUCTION_FLAGS: readonly string[] = ["--minify", "--keep-names"];

/**
 * Which modules each bundled file holds, by path relative to the bundle (npm modules as
 * `npm:<name>/<path>`, the program's own relative to the repository). Minified files carry
 * no module comments; tests read this to check what a command path loads.
 */
export const MODULES_FILE = "modules.json";

/**
 * Turns the source maps the build wrote into {@link MODULES_FILE} and removes them: they are
 * not shipped.
 */
async function writeModules(dir: string): Promise<void> {
  const modules: Record<string, string[]> = {};
  const walk = async (d: string): Promise<void> => {
    for await (const entry of Deno.readDir(d)) {
      const path = join(d, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".js.map")) {
        const map = JSON.parse(await Deno.readTextFile(path)) as { sources: string[] };
        const file = relative(dir, path.slice(0, -".map".length));
        modules[file] = map.sources.map((source) => {
          const absolute = resolve(dirname(path), source);
          const npm = /\/npm\/[^/]+\/((?:@[^/]+\/)?[^/]+)\/[^/]+\/(.*)$/.exec(absolute);
          return npm ? `npm:${npm[1]}/${npm[2]}` : relative(ROOT, absolute);
        });
        await Deno.remove(path);
      }
    }
  };
  await walk(dir);
  await Deno.writeTextFile(join(dir, MODULES_FILE), JSON.stringify(modules, null, 1) + "\n");
}

async function bundle(args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      ...PRODUCTION_FLAGS,
      // ssh2 and cpu-features try their optional native addons inside a try and fall back to
      // pure JavaScript; a bundle has no addons, so those requires stay unresolved and fail over.
      "--external=*.node",
      "--sourcemap=external",
      "--config",
      join(ROOT, "deno.json"),
      ...args,
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr).split("\n")
      .filter((line) => !line.includes("bundler warning") && !/^\s+at /.test(line)).join("\n");
    throw new Error(`deno bundle failed:\n${text.trim()}`);
  }
}

/** Builds the bundle into `dir` (replacing what was there). */
export async function buildBundle(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const externals = EXTERNAL.flatMap((name) => ["--external", name]);
  await bundle(["--output", bundleEntry(dir), join(ROOT, "cli/main.ts")]);
  await bundle([
    "--code-splitting",
    ...externals,
    "--outdir",
    dir,
    ...LAZY_MODULES.map((module) => join(ROOT, module)),
  ]);
  // `deno install` copies the nearest deno.json for the launcher to use. The repository's would
  // make every start load its import map and lockfile, which the bundle does not need.
  await Deno.writeTextFile(join(dir, "deno.json"), '{ "lock": false }\n');
  await writeModules(dir);
  await deferBundleRequires(dir);
  await lazyBundleRequire(dir);
  // One-byte source strings in V8: a wide character doubles a whole file's memory.
  for await (const file of scripts(dir)) {
    const text = await Deno.readTextFile(file);
    const latin1 = latin1Source(text);
    if (latin1 !== text) await Deno.writeTextFile(file, latin1);
  }
  for (const module of LAZY_MODULES) {
    const built = join(dir, module.replace(/\.ts$/, ".js"));
    try {
      await Deno.stat(built);
    } catch {
      throw new Error(`deno bundle did not write ${built}; the bundle layout changed`);
    }
  }
}

if (import.meta.main) {
  const dir = join(ROOT, BUNDLE_DIR);
  await buildBundle(dir);
  console.log(`bundled into ${dir}`);
}
