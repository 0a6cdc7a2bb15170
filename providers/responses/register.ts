/**
 * Registers the `responses` kind when imported (the kind registers itself; `mod.ts` only
 * re-exports). `../builtin_kinds.ts` lists every built-in kind's registration.
 *
 * @module
 */
import { registerProviderKind } from "../registry.ts";
import { createResponsesProvider } from "./provider.ts";

registerProviderKind("responses", createResponsesProvider, {
  requiresMaxTokens: false,
  options: ["encrypted_reasoning", "reasoning_summary"],
  requestPath: "/responses",
});
