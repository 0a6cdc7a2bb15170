import assert from "node:assert/strict";
import { join } from "node:path";
import { deferRequires, lazyRequire } from "./bundle.ts";

/** commander's head and another package's require, as esbuild writes them unminified. */
const PLAIN = `var require_command = __commonJS({
  "commander/lib/command.js"(exports) {
    var EventEmitter = __require("node:events").EventEmitter;
    var childProcess = __require("node:child_process");
    var path = __require("node:path");
    var fs = __require("node:fs");
    var process = __require("node:process");
    exports.spawn = (file) => childProcess.spawn(file);
    exports.exists = (file) => fs.existsSync(file);
    exports.base = (file) => path.basename(file);
  }
});
var require_cross_spawn = __commonJS({
  "cross-spawn/index.js"(exports) {
    var cp = __require("node:child_process");
    exports.cp = cp;
  }
});
`;

/** The same, minified. */
const MINIFIED =
  `var Q=O(j=>{var _t=A("node:events").EventEmitter,I=A("node:child_process"),g=A("node:path"),` +
  `x=A("node:fs"),d=A("node:process");j.spawn=f=>I.spawn(f);j.exists=f=>x.existsSync(f);` +
  `j.base=f=>g.basename(f)});var R=O(j=>{var cp=A("node:child_process");j.cp=cp});`;

/** Loads `text` with a fake `require`, returning what it required and the first module. */
function load(text: string, requireName: string, commonJsName: string, first: string) {
  const required: string[] = [];
  const modules: Record<string, Record<string, unknown>> = {
    "node:events": { EventEmitter: class {} },
    "node:child_process": { spawn: (file: string) => `spawned ${file}` },
    "node:path": { basename: (file: string) => file.split("/").at(-1) },
    "node:fs": { existsSync: (file: string) => file === "here" },
    "node:process": {},
  };
  const require = (name: string) => {
    required.push(name);
    return modules[name];
  };
  const commonJs = (def: unknown) => () => {
    const exports = {};
    const fn = typeof def === "function" ? def : Object.values(def as object)[0];
    fn(exports);
    return exports;
  };
  const run = new Function(requireName, commonJsName, `${text}\nreturn ${first};`);
  const init = run(require, commonJs) as () => Record<string, (file: string) => unknown>;
  return { required, init };
}

for (
  const [form, text, requireName, commonJsName, first] of [
    ["unminified", PLAIN, "__require", "__commonJS", "require_command"],
    ["minified", MINIFIED, "A", "O", "Q"],
  ] as const
) {
  Deno.test(`commander's child_process and fs load on first use, other packages' at once (${form})`, () => {
    const { text: rewritten, deferred } = deferRequires(text);
    assert.equal(deferred, 2);
    const { required, init } = load(rewritten, requireName, commonJsName, first);
    const command = init();
    assert.deepEqual(required, ["node:events", "node:path", "node:process"]);
    // Deferred, not removed: the modules still work when commander reaches for them.
    assert.equal(command.exists("here"), true);
    assert.equal(command.spawn("x"), "spawned x");
    assert.equal(command.base("a/b"), "b");
    assert.deepEqual(required, [
      "node:events",
      "node:path",
      "node:process",
      "node:fs",
      "node:child_process",
    ]);
    // cross-spawn's require is not commander's, and stays as it was.
    assert.match(rewritten, new RegExp(`cp ?= ?${requireName}\\("node:child_process"\\)`));
  });
}

Deno.test("a bundle without commander is left as it is", () => {
  const other = PLAIN.slice(PLAIN.indexOf("var require_cross_spawn"));
  assert.deepEqual(deferRequires(other), { text: other, deferred: 0 });
});

/** esbuild's helper chunk as Deno's bundler writes it (abridged). */
const HELPERS = `var __defProp = Object.defineProperty;
import { createRequire as __deno_internal_createRequire } from "node:module";
var __require = __deno_internal_createRequire(import.meta.url);
export { __require };
`;

Deno.test("the helpers' require loads node:module on its first call and then works as before", async () => {
  const { text, rewritten } = lazyRequire(HELPERS);
  assert.ok(rewritten);
  assert.doesNotMatch(text, /from "node:module"/);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "helpers.js"), text);
    const { __require } = await import(join("file://", dir, "helpers.js"));
    assert.equal(__require("node:path").basename("/a/b.txt"), "b.txt");
    assert.equal(typeof __require("node:fs").existsSync, "function");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert.deepEqual(lazyRequire("var x = 1;"), { text: "var x = 1;", rewritten: false });
});

/** esbuild's minified helper chunk: its `require` is the global one, which ES modules lack. */
const MINIFIED_HELPERS =
  `var n=(a=>typeof require<"u"?require:typeof Proxy<"u"?new Proxy(a,{get:(b,c)=>` +
  `(typeof require<"u"?require:b)[c]}):a)(function(a){if(typeof require<"u")return ` +
  `require.apply(this,arguments);throw Error('Dynamic require of "'+a+'" is not supported')});` +
  `export{n as b};\n`;

Deno.test("the minified helpers get a require that loads node:module on its first call", async () => {
  const { text, rewritten } = lazyRequire(MINIFIED_HELPERS);
  assert.ok(rewritten);
  assert.doesNotMatch(text, /from ?"node:module"/);
  assert.equal(lazyRequire(text).rewritten, false, "rewritten once");
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "helpers.js"), text);
    const { b: require } = await import(join("file://", dir, "helpers.js"));
    assert.equal(require("node:path").basename("/a/b.txt"), "b.txt");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
