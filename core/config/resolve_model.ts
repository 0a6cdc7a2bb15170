/**
 * Picks a provider and model from a model spec: a provider name, `provider/model`, or a bare
 * model name.
 *
 * @module
 */
import { BUILTIN_SOURCE, builtinDefaults } from "./defaults.ts";
import { endpointOrigins } from "./endpoint.ts";
import { ConfigError } from "./errors.ts";
import { builtinPrice } from "./prices.ts";
import type { Config, ProviderConfig, ResolvedModel } from "./types.ts";

/**
 * Resolves `spec`, or `config.default_model` when absent:
 * - a provider name picks that provider's `default` (else its first model);
 * - `provider/model` needs the model listed, unless the provider lists no models;
 * - a bare model name is searched in every provider, the default model's provider first;
 *   several other providers listing it is ambiguous.
 *
 * Throws {@link ConfigError} naming the available `provider/model` choices.
 */
export function resolveModel(config: Config, spec?: string): ResolvedModel {
  const origin = spec !== undefined ? "--model" : config.default_model_from ?? BUILTIN_SOURCE;
  const text = (spec ?? config.default_model).trim();
  const fail = (problem: string, fix?: string): never => {
    throw new ConfigError({
      ...(origin === "--model" || origin === BUILTIN_SOURCE
        ? {}
        : { file: origin, line: config.default_model_line }),
      problem,
      fix: fix ?? howToChoose(config, origin),
      // An ignored `[[provider]]` or `modles` is the likeliest reason a model is unknown.
      notes: [...config.ignored ?? [], ...config.providers.flatMap((p) => p.source?.ignored ?? [])],
    });
  };
  const { providers } = config;

  const named = providers.find((p) => p.name === text);
  if (named) {
    const model = named.default ?? named.models[0];
    if (model === undefined) {
      fail(
        `provider "${named.name}" lists no models and has no default`,
        `add models = ["..."] or default = "..." to [[providers]] "${named.name}", or use ` +
          `${named.name}/<model>`,
      );
    }
    return build(named, model!);
  }

  const slash = text.indexOf("/");
  if (slash > 0) {
    const provider = providers.find((p) => p.name === text.slice(0, slash));
    const model = text.slice(slash + 1);
    if (provider && model) {
      if (provider.models.length === 0 || provider.models.includes(model)) {
        return build(provider, model);
      }
      fail(
        `model "${model}" is not listed by provider "${provider.name}" ` +
          `(models: ${provider.models.join(", ")})`,
        `use one of ${provider.models.map((m) => `${provider.name}/${m}`).join(", ")}, or add ` +
          `"${model}" to models in [[providers]] "${provider.name}"`,
      );
    }
  }

  // A bare name; names like "vendor/model" with no such provider are searched whole.
  const matches = providers.filter((p) => p.models.includes(text));
  const preferred = defaultProvider(config);
  const pick = matches.find((p) => p === preferred) ??
    (matches.length === 1 ? matches[0] : undefined) ?? builtinPreference(matches);
  if (pick) return build(pick, text);
  if (matches.length > 1) {
    fail(
      `model "${text}" is ambiguous: it is offered by ${
        matches.map((p) => `"${p.name}"`).join(", ")
      }`,
      `choose one of ${matches.map((p) => `${p.name}/${text}`).join(", ")}` +
        (origin === "--model" ? " with --model" : ` as default_model in ${origin}`),
    );
  }
  return fail(`unknown model "${text}" (available: ${available(config).join(", ")})`);
}

function howToChoose(config: Config, origin: string): string {
  const choices = available(config).join(", ");
  return origin === "--model"
    ? `pass --model provider/model, one of: ${choices}`
    : `set default_model in ${origin} or pass --model provider/model, one of: ${choices}`;
}

function available(config: Config): string[] {
  return config.providers.flatMap((p) =>
    p.models.length ? p.models.map((m) => `${p.name}/${m}`) : [`${p.name}/<any model>`]
  );
}

/** The provider `default_model` names explicitly (by name or `provider/model`), if any. */
function defaultProvider(config: Config): ProviderConfig | undefined {
  const spec = config.default_model.trim();
  const slash = spec.indexOf("/");
  return config.providers.find((p) => p.name === spec) ??
    (slash > 0 ? config.providers.find((p) => p.name === spec.slice(0, slash)) : undefined);
}

/**
 * The built-in presets offer the same models over several wire formats; among only those, the
 * built-in default provider wins. Any user-declared provider in the mix keeps it ambiguous.
 */
function builtinPreference(matches: ProviderConfig[]): ProviderConfig | undefined {
  const builtin = (p: ProviderConfig) => p.source?.declared_in.file === BUILTIN_SOURCE;
  if (matches.length < 2 || !matches.every(builtin)) return undefined;
  return matches.find((p) => p.name === builtinDefaults().default_model);
}

function build(provider: ProviderConfig, model: string): ResolvedModel {
  const override = provider.model_overrides[model];
  const resolved: ResolvedModel = {
    provider,
    model,
    contextWindow: override?.context_window ?? provider.context_window,
    maxOutputTokens: override?.max_output_tokens ?? provider.max_output_tokens,
  };
  const price = override?.price ?? provider.price ??
    builtinPrice(endpointOrigins(provider)[0].origin, model);
  if (price) resolved.price = price;
  return resolved;
}
