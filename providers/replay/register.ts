/**
 * Registers the `replay` kind when imported (the kind registers itself; `mod.ts` only
 * re-exports). `../builtin_kinds.ts` lists every built-in kind's registration.
 *
 * @module
 */
import { registerProviderKind } from "../registry.ts";
import { createReplayProvider } from "./provider.ts";

registerProviderKind("replay", createReplayProvider, {
  requiresMaxTokens: false,
  options: ["file", "strict"],
});
