/**
 * `reasonix acp` loads the ACP SDK only when it runs: the module graphs of `--version`, the
 * command tree and headless `run` hold neither `cli/acp/` nor the SDK.
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

const isAcp = (s: string) => s.includes("/cli/acp/") || s.includes("@agentclientprotocol/");

Deno.test("--version, the command tree and run never load the ACP agent or its SDK", async () => {
  const acp = await graph("cli/acp/mod.ts");
  assert.ok(
    acp.some((s) => s.startsWith("npm:/@agentclientprotocol/sdk")),
    "the check sees the SDK",
  );
  for (const entry of ["cli/main.ts", "cli/app.ts", "cli/commands/fast_run.ts", "cli/run.ts"]) {
    assert.deepEqual((await graph(entry)).filter(isAcp), [], `${entry} loads the ACP agent`);
  }
});
