/**
 * Builds a provider from its configuration. A kind rejects option values it does not accept in
 * its constructor; here such a rejection becomes a {@link ConfigError} that names the file and
 * line of the option and the values it takes, so a bad option stops start-up like any other
 * configuration mistake instead of escaping as a crash.
 *
 * @module
 */
import {
  createProvider,
  providerKindDescriptor,
  type ProviderSettings,
} from "../../providers/registry.ts";
import { ProviderOptionError } from "../../providers/errors.ts";
import { redactSecrets } from "../../providers/http.ts";
import type { Provider } from "../../providers/types.ts";
import { BUILTIN_SOURCE } from "./defaults.ts";
import { ConfigError } from "./errors.ts";
import type { ProviderConfig, SourceLocation } from "./types.ts";

/** `createProvider(config.kind, settings)`, with bad kind-specific options as a `ConfigError`. */
export function providerFromConfig(config: ProviderConfig, settings: ProviderSettings): Provider {
  try {
    return createProvider(config.kind, settings);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const table = `[[providers]] "${config.name}"`;
    // An ignored typo (`base_ur`) is usually why something is missing: say so with it.
    const notes = config.source?.ignored ?? [];
    if (error instanceof ProviderOptionError) {
      const at = config.source?.options_from?.[error.option] ?? config.source?.declared_in;
      const value = config.options[error.option];
      throw new ConfigError({
        ...location(at),
        problem: value === undefined
          ? `${table} (kind "${config.kind}") needs ${error.option}`
          : `${error.option} = ${JSON.stringify(value)} in ${table} is not accepted by kind ` +
            `"${config.kind}"`,
        fix: `set ${error.option} to ${error.expected}` +
          (value === undefined ? "" : ", or remove it"),
        notes,
        cause: error,
      });
    }
    if (/needs base_url/.test(error.message)) {
      const path = providerKindDescriptor(config.kind).requestPath;
      throw new ConfigError({
        ...location(config.source?.declared_in),
        problem: `${table} (kind "${config.kind}") has no endpoint: it needs base_url`,
        fix: `add base_url = "https://…" to ${table}: the API root, such as ` +
          `https://api.example.com/v1` +
          (path ? ` (Reasonix appends ${path})` : "") +
          "; or request_url, the full URL used as written",
        notes,
        cause: error,
      });
    }
    // Such a message may quote a header value: keep the key and header values out of it.
    const secrets = [settings.apiKey ?? "", ...Object.values(settings.headers ?? {})];
    throw new ConfigError({
      ...location(config.source?.declared_in),
      problem: `${table}: ${redactSecrets(error.message, secrets)}`,
      fix: `correct ${table}`,
      notes,
      cause: error,
    });
  }
}

function location(at: SourceLocation | undefined): { file?: string; line?: number } {
  if (!at || at.file === BUILTIN_SOURCE) return {};
  return at.line === undefined ? { file: at.file } : { file: at.file, line: at.line };
}
