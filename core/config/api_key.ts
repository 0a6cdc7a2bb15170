/**
 * API keys: read from the environment variable a provider names (`api_key_env`), else from
 * `<home>/.env`. Never from a project `.env`, never from the configuration itself.
 *
 * A project `reasonix.toml` must not be able to send a user's key elsewhere. When the built-in
 * defaults or the user config use a variable as `api_key_env`, that key is released only to a
 * provider whose every endpoint origin is one those trusted layers bound to the variable.
 *
 * @module
 */
import { join } from "node:path";
import { loadHomeDotenv } from "./dotenv.ts";
import { endpointOrigins } from "./endpoint.ts";
import { ConfigError } from "./errors.ts";
import { BUILTIN_SOURCE } from "./defaults.ts";
import type { ProviderConfig, SourceLocation } from "./types.ts";

/** Where {@link resolveApiKey} looks. */
export interface ApiKeyOptions {
  /** The process environment. */
  env: Record<string, string | undefined>;
  /** The Reasonix home; its `.env` is the fallback. */
  home: string;
}

/**
 * The API key for `provider`, or `undefined` when it names no `api_key_env` (local gateways).
 * Throws {@link ConfigError} when the key is unset or may not be released to this endpoint.
 */
export async function resolveApiKey(
  provider: ProviderConfig,
  opts: ApiKeyOptions,
): Promise<string | undefined> {
  const name = provider.api_key_env;
  if (!name) return undefined;
  checkKeyRelease(provider, name, opts.home);

  const fromEnv = opts.env[name];
  if (fromEnv) return usableKey(fromEnv, name, "the environment");
  const fromFile = (await loadHomeDotenv(opts.home))[name];
  if (fromFile) return usableKey(fromFile, name, join(opts.home, ".env"));

  const declared = provider.source?.api_key_env_from?.file ??
    provider.source?.declared_in.file ?? BUILTIN_SOURCE;
  if (looksLikeApiKey(name)) {
    // A library caller's config skips the loader's check; the name is still never repeated.
    throw new ConfigError({
      problem: `api_key_env of provider "${provider.name}" (in ${declared}) looks like an API ` +
        `key itself, not the name of an environment variable (the value is not shown)`,
      fix: `put the key in ${join(opts.home, ".env")} as NAME=<your key> and set api_key_env = ` +
        `"NAME"`,
    });
  }
  throw new ConfigError({
    problem: `${name} is not set (provider "${provider.name}" in ${declared})`,
    fix: `export ${name}=... or add it to ${join(opts.home, ".env")}`,
  });
}

/**
 * Whether an `api_key_env` value looks like an API key rather than a variable name: a vendor
 * key prefix (`sk-`, `sk_live_`, `ghp_`, `AIza`), or a long run mixing lower case and digits
 * that variable names (`DEEPSEEK_API_KEY`) do not have.
 */
export function looksLikeApiKey(value: string): boolean {
  if (/^(sk|pk|rk|ak)[-_]|^(ghp|gho|github_pat|xox[abp]|glpat)[-_]|^AIza/i.test(value)) return true;
  if (value.length < 20 || !/\d/.test(value)) return false;
  const lower = /[a-z]/.test(value);
  const upper = /[A-Z]/.test(value);
  return (lower && upper) || (lower && !value.includes("_")) || value.length >= 32;
}

function checkKeyRelease(provider: ProviderConfig, name: string, home: string): void {
  const bindings = provider.source?.trusted_key_bindings;
  if (!bindings) return;
  const allowed = new Set(bindings.map((b) => b.origin));
  for (const { field, origin } of endpointOrigins(provider)) {
    if (allowed.has(origin)) continue;
    const blame = blameFor(provider, field);
    const bound = [...allowed].join(", ");
    const owners = [...new Set(bindings.map((b) => `provider "${b.provider}" in ${b.file}`))]
      .join(", ");
    throw new ConfigError({
      file: blame?.file,
      line: blame?.line,
      problem: `refusing to send ${name} to ${origin} for provider "${provider.name}": that key ` +
        `belongs to ${owners}, bound to ${bound}; a project reasonix.toml cannot send a ` +
        `user's API key to another endpoint`,
      fix: `if you trust ${origin} with ${name}, declare provider "${provider.name}" in ` +
        `${join(home, "config.toml")}; otherwise use a different api_key_env`,
    });
  }
}

/** The untrusted location that caused a mismatch: the endpoint key, else `api_key_env`. */
function blameFor(provider: ProviderConfig, field: string): SourceLocation | undefined {
  const src = provider.source!;
  const endpoint = field === "kind" ? undefined : src.endpoint_from[field as "base_url"];
  if (endpoint && !endpoint.trusted) return endpoint;
  if (src.api_key_env_from && !src.api_key_env_from.trusted) return src.api_key_env_from;
  return endpoint ?? src.api_key_env_from ?? src.declared_in;
}

/**
 * The key, if it can go into an HTTP header. The value itself never appears in the message:
 * a pasted key with a stray line break or space is still a secret.
 */
function usableKey(key: string, name: string, where: string): string {
  const bad = /[^\x21-\x7e]/.exec(key)?.[0];
  if (bad === undefined) return key;
  const what = bad === "\n" || bad === "\r"
    ? "a line break"
    : bad === " " || bad === "\t"
    ? "a space"
    : bad.charCodeAt(0) < 0x20 || bad.charCodeAt(0) === 0x7f
    ? "a control character"
    : "a non-ASCII character";
  throw new ConfigError({
    problem: `${name} (from ${where}) contains ${what}, so it cannot be an API key`,
    fix: `set ${name} to the key alone, with no spaces, quotes or line breaks`,
  });
}
