import assert from "node:assert/strict";
import { endpointUrl, secretsOf } from "./settings.ts";

Deno.test("endpointUrl uses request_url verbatim, else joins base_url without doubling /v1", () => {
  const s = { name: "p", model: "m" };
  assert.equal(
    endpointUrl({ ...s, baseUrl: "https://api.deepseek.com/anthropic" }, "/v1/messages"),
    "https://api.deepseek.com/anthropic/v1/messages",
  );
  assert.equal(
    endpointUrl({ ...s, baseUrl: "https://gw.example/v1/" }, "/v1/messages"),
    "https://gw.example/v1/messages",
  );
  assert.equal(
    endpointUrl({ ...s, baseUrl: "https://api.openai.com/v1" }, "/responses"),
    "https://api.openai.com/v1/responses",
  );
  assert.equal(
    endpointUrl({ ...s, baseUrl: "https://x", requestUrl: "https://p/y?z=1" }, "/responses"),
    "https://p/y?z=1",
  );
  assert.throws(() => endpointUrl({ ...s, chatUrl: "https://c" }, "/responses"), TypeError);
});

Deno.test("secretsOf lists the key and credential header values", () => {
  assert.deepEqual(
    secretsOf({
      name: "p",
      model: "m",
      apiKey: "k1",
      headers: { Authorization: "Bearer tok", "X-Title": "t" },
    }),
    ["k1", "Bearer tok", "tok"],
  );
});
