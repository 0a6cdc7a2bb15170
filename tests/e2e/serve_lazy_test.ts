/**
 * `reasonix serve` loads the web app, Hono and the page only when it runs: the module graphs
 * of `--version`, the command tree and headless `run` hold none of them.
 */
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CONFIG_PATH } from "./support.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

async function graph(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", CONFIG_PATH, join(ROOT, entry)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string }[];
  };
  return info.modules.map((m) => m.specifier);
}

// The command's options type is all the definition may see of cli/serve/.
const isServe = (s: string) =>
  (s.includes("/cli/serve/") && !s.endsWith("/cli/serve/options.ts")) || s.includes("/hono@");

Deno.test("--version, the command tree and run never load the web app or Hono", async () => {
  const serve = await graph("cli/serve/command.ts");
  assert.ok(serve.some((s) => s.includes("/hono@")), "the check sees Hono");
  assert.ok(serve.some((s) => s.endsWith("/cli/serve/assets.generated.ts")), "and the page");
  for (const entry of ["cli/main.ts", "cli/app.ts", "cli/commands/fast_run.ts", "cli/run.ts"]) {
    assert.deepEqual((await graph(entry)).filter(isServe), [], `${entry} loads the web app`);
  }
});
