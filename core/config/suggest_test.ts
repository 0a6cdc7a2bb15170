import assert from "node:assert/strict";
import { editDistance, suggestKey } from "./suggest.ts";

Deno.test("editDistance counts a swap of neighbours as one edit", () => {
  assert.equal(editDistance("kind", "kind"), 0);
  assert.equal(editDistance("knid", "kind"), 1);
  assert.equal(editDistance("base_ur", "base_url"), 1);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

Deno.test("suggestKey finds the key a typo misspells", () => {
  const providerKeys = ["name", "kind", "base_url", "models", "api_key_env", "context_window"];
  assert.equal(suggestKey("base_ur", providerKeys), "base_url");
  assert.equal(suggestKey("knid", providerKeys), "kind");
  assert.equal(suggestKey("api_key_evn", providerKeys), "api_key_env");
  assert.equal(suggestKey("context-window", providerKeys), "context_window");
  assert.equal(suggestKey("Models", providerKeys), "models");
  assert.equal(
    suggestKey("provider", ["default_model", "agent", "providers", "tools"]),
    "providers",
  );
});

Deno.test("suggestKey suggests nothing for a word unlike every key", () => {
  const keys = ["default_model", "agent", "providers", "tools", "permissions", "sandbox"];
  assert.equal(suggestKey("colour", keys), undefined);
  assert.equal(suggestKey("web_search", ["name", "kind", "base_url"]), undefined);
  // Short words need a near-exact match: "url" is not "kind" or "name".
  assert.equal(suggestKey("url", ["name", "kind"]), undefined);
  assert.equal(suggestKey("name", ["name"]), undefined);
});

Deno.test("suggestKey prefers the closest key, then the one listed first", () => {
  assert.equal(suggestKey("max_turn", ["max_tokens", "max_turns"]), "max_turns");
  assert.equal(suggestKey("allow", ["allow_write", "allow"]), undefined);
  assert.equal(suggestKey("alow", ["ask", "allow"]), "allow");
});
