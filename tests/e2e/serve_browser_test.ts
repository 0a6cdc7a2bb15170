/**
 * Runs the real-browser scenario (`serve_browser_scenario.ts`) in a `deno test` of its own with
 * every permission: playwright-core probes `/proc/sys/fs/binfmt_misc` at import, which Deno
 * allows only under `--allow-all`, and the suite's task grants named permissions instead.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SCENARIO = join(dirname(fileURLToPath(import.meta.url)), "serve_browser_scenario.ts");

Deno.test("the browser scenario of reasonix serve passes in Chromium", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", SCENARIO],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.ok(out.success, text);
  // The scenario skips only when Chromium is missing, and then says so.
  assert.match(text, /1 passed|skipped, \/usr\/bin\/chromium is not installed/, text);
});
