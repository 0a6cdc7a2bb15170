/**
 * `reasonix acp` loads the ACP SDK only when it runs: the module graphs of `--version`, the
 * command tree and headless `run` hold neither `cli/acp/` nor the SDK.
 */
import assert from "node:assert/strict";
import { moduleGraph } from "./support.ts";

const isAcp = (s: string) => s.includes("/cli/acp/") || s.includes("@agentclientprotocol/");

Deno.test("--version, the command tree and run never load the ACP agent or its SDK", async () => {
  const acp = await moduleGraph("cli/acp/mod.ts");
  assert.ok(
    acp.some((s) => s.startsWith("npm:/@agentclientprotocol/sdk")),
    "the check sees the SDK",
  );
  for (const entry of ["cli/main.ts", "cli/app.ts", "cli/commands/fast_run.ts", "cli/run.ts"]) {
    assert.deepEqual((await moduleGraph(entry)).filter(isAcp), [], `${entry} loads the ACP agent`);
  }
});
