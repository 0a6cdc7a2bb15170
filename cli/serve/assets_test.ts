import assert from "node:assert/strict";
import { GENERATED, generatedModule } from "./build_assets.ts";

Deno.test("assets.generated.ts is what deno task serve:assets makes of the page sources", async () => {
  const committed = await Deno.readTextFile(GENERATED);
  assert.ok(
    committed === await generatedModule(),
    "cli/serve/assets.generated.ts is stale: run `deno task serve:assets`",
  );
});
