import assert from "node:assert/strict";
import { ReasonixError, type ReasonixErrorCode } from "./errors.ts";
import { ProviderError } from "./providers/errors.ts";
import { ConfigError } from "./core/config/errors.ts";

Deno.test("ReasonixError codes come from one closed list, checked by the compiler", () => {
  const known: ReasonixErrorCode = "config_invalid";
  assert.equal(new ReasonixError(known, "x").code, "config_invalid");
  // @ts-expect-error: a code outside ReasonixErrorCode does not type-check.
  assert.equal(new ReasonixError("no_such_code", "x").code, "no_such_code");
  // Subclasses narrow to their group of the list.
  const provider: ReasonixErrorCode = new ProviderError("provider_auth", "denied").code;
  const config: ReasonixErrorCode = new ConfigError({ problem: "p" }).code;
  assert.deepEqual([provider, config], ["provider_auth", "config_invalid"]);
});
