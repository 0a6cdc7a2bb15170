/**
 * Registers the `anthropic` kind when imported (the kind registers itself; `mod.ts` only
 * re-exports). `../builtin_kinds.ts` lists every built-in kind's registration.
 *
 * @module
 */
import { registerProviderKind } from "../registry.ts";
import { ANTHROPIC_DESCRIPTOR, createAnthropicProvider } from "./provider.ts";

registerProviderKind("anthropic", createAnthropicProvider, {
  ...ANTHROPIC_DESCRIPTOR,
  options: ["thinking", "thinking_budget"],
  requestPath: "/v1/messages",
});
