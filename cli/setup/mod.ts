/**
 * `reasonix setup`: provider presets applied to the user's configuration, interactively or
 * from flags.
 *
 * @module
 */
export { offerSetup, setupCommand } from "./command.ts";
export { providerBlock, runSetup, type SetupDeps } from "./flow.ts";
export { keyProblem, type StoredKey, storeKey } from "./key_store.ts";
export {
  type ListedModel,
  listModels,
  type ListModelsOptions,
  type ModelListing,
} from "./models.ts";
export { PROBE_PROMPT, probeProvider, type ProbeResult } from "./probe.ts";
export { type Choice, type Prompter, SetupCancelled } from "./prompter.ts";
