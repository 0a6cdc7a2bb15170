// The shared robustness tests, run against the fake speaking Chat Completions.
import { openAiErrorBody } from "../../tests/fake_llm/mod.ts";
import { providerConformance } from "../../tests/support/provider_conformance.ts";
import "../builtin_kinds.ts";

providerConformance({
  kind: "openai",
  format: "openai",
  path: "/v1/chat/completions",
  lengthFinish: "length",
  errorBody: (message, type) => JSON.parse(openAiErrorBody(message, type)),
});
