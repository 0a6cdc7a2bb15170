/**
 * Configuration (spec §5): layered TOML files, `${VAR}` expansion, API keys, model
 * resolution and the output-token budget.
 *
 * @module
 */
export type * from "./types.ts";
export { ConfigError, type ConfigErrorDetails } from "./errors.ts";
export { type EnvSource, envValue, reasonixHome } from "./home.ts";
export { loadHomeDotenv, loadProjectDotenv, parseDotenv, readDotenvFile } from "./dotenv.ts";
export { expandVars, referencedVars, VarExpansionError, type VarLookup } from "./expand.ts";
export { type KeyPath, locateKey, type Position, tomlKeyPositions } from "./toml_locate.ts";
export { BUILTIN_SOURCE, builtinDefaults } from "./defaults.ts";
export { builtinPrice, DEEPSEEK_ORIGIN } from "./prices.ts";
export { mergeLayers } from "./merge.ts";
export { loadConfig, type LoadConfigOptions, type LoadedConfig } from "./load.ts";
export {
  canonicalJson,
  declarationHash,
  declarationSummary,
  LOOSENING_SETTINGS,
  printable,
  projectProviderDeclarations,
  projectSettingsDeclaration,
  SETTINGS_NAME,
  shellWord,
  TRUST_FORMAT_VERSION,
  type TrustDeclaration,
  type TrustGrant,
  type TrustKind,
  type TrustSnapshot,
  TrustStore,
  workspaceFile,
  workspaceKey,
  type WorkspaceTrust,
} from "./trust.ts";
export { applyFlags, type ConfigFlags } from "./flags.ts";
export { type ApiKeyOptions, resolveApiKey } from "./api_key.ts";
export { type EndpointOrigin, endpointOrigins, originOf } from "./endpoint.ts";
export { providerFromConfig } from "./provider_setup.ts";
export { knownContextWindow } from "./known_models.ts";
export { resolveModel } from "./resolve_model.ts";
export {
  automaticOutputTokens,
  type OutputBudgetOptions,
  type OutputBudgetPlan,
  outputBudgetPlan,
  outputTokenBudget,
  resolvedCapabilities,
} from "./output_budget.ts";
