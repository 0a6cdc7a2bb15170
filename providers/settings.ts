/**
 * Small helpers every provider kind applies to its `ProviderSettings`.
 *
 * @module
 */
import type { ProviderSettings } from "./registry.ts";

/** Values that must never appear in messages or recordings: the key and auth header values. */
export function secretsOf(settings: ProviderSettings): string[] {
  const secrets: string[] = [];
  if (settings.apiKey) secrets.push(settings.apiKey);
  for (const [name, value] of Object.entries(settings.headers ?? {})) {
    if (isSecretHeader(name)) secrets.push(value, value.replace(/^(Bearer|Basic)\s+/i, ""));
  }
  return secrets;
}

/** Whether a header name carries a credential. */
export function isSecretHeader(name: string): boolean {
  return /auth|key|token|secret|cookie/i.test(name);
}

/**
 * The request URL of a kind: `requestUrl` verbatim, else `baseUrl` joined with `path`. When the
 * base already ends with the first segment of `path` (a base of `…/v1` for `/v1/messages`),
 * that segment is not repeated.
 */
export function endpointUrl(settings: ProviderSettings, path: string): string {
  if (settings.requestUrl) return settings.requestUrl;
  if (!settings.baseUrl) {
    throw new TypeError(`provider "${settings.name}" needs base_url or request_url`);
  }
  const base = settings.baseUrl.replace(/\/+$/, "");
  const first = /^\/[^/]+/.exec(path)?.[0];
  if (first && path !== first && base.endsWith(first)) return base + path.slice(first.length);
  return base + path;
}
