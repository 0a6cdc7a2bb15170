/**
 * Registers the `openai` kind when imported (the kind registers itself; `mod.ts` only
 * re-exports). `../builtin_kinds.ts` lists every built-in kind's registration.
 *
 * @module
 */
import { registerProviderKind } from "../registry.ts";
import { createOpenAiProvider } from "./provider.ts";

registerProviderKind("openai", createOpenAiProvider, {
  requiresMaxTokens: false,
  options: ["max_tokens_field"],
  requestPath: "/chat/completions",
});
