import assert from "node:assert/strict";
import { DEV_VERSION } from "./version.ts";

Deno.test("the development version matches deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.equal(DEV_VERSION, config.version);
});
