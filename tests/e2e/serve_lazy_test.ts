/**
 * `reasonix serve` loads the web app, Hono and the page only when it runs: the module graphs
 * of `--version`, the command tree and headless `run` hold none of them.
 */
import assert from "node:assert/strict";
import { moduleGraph } from "./support.ts";

const isServe = (s: string) =>
  (s.includes("/cli/serve/") && !s.endsWith("/cli/serve/options.ts")) || s.includes("/hono@");

Deno.test("--version, the command tree and run never load the web app or Hono", async () => {
  const serve = await moduleGraph("cli/serve/command.ts");
  assert.ok(serve.some((s) => s.includes("/hono@")), "the check sees Hono");
  assert.ok(serve.some((s) => s.endsWith("/cli/serve/assets.generated.ts")), "and the page");
  for (const entry of ["cli/main.ts", "cli/app.ts", "cli/commands/fast_run.ts", "cli/run.ts"]) {
    assert.deepEqual((await moduleGraph(entry)).filter(isServe), [], `${entry} loads the web app`);
  }
});
