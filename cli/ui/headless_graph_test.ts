import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

Deno.test("the headless path never loads the interactive UI", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", `${ROOT}/deno.json`, `${ROOT}/cli/run.ts`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string }[];
  };
  const specifiers = graph.modules.map((m) => m.specifier);
  assert.ok(specifiers.some((s) => s.endsWith("/cli/host.ts")), "graph looks incomplete");
  const ui = specifiers.filter((s) =>
    s.includes("/cli/ui/") || /npm:\/?(ink|react)@|registry\.npmjs\.org\/(ink|react)\//.test(s)
  );
  assert.deepEqual(ui, []);
});
