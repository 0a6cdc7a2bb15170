/**
 * Where a provider sends its requests, reduced to origins for the key-release rule and the
 * price table.
 *
 * @module
 */
import type { ProviderConfig } from "./types.ts";

/** One endpoint key of a provider and the origin it points at. */
export interface EndpointOrigin {
  /** `request_url`, `chat_url`, `base_url`, or `kind` when none is set. */
  field: "request_url" | "chat_url" | "base_url" | "kind";
  /** `scheme://host[:port]`, or `default:<kind>` for the kind's own default endpoint. */
  origin: string;
}

type EndpointFields = Pick<ProviderConfig, "kind" | "base_url" | "request_url" | "chat_url">;

/**
 * Origins of every endpoint key the provider sets. All are returned, not only the one a kind
 * would use, so the key-release rule holds whichever key a kind prefers.
 */
export function endpointOrigins(provider: EndpointFields): EndpointOrigin[] {
  const out: EndpointOrigin[] = [];
  for (const field of ["request_url", "chat_url", "base_url"] as const) {
    const url = provider[field];
    if (url !== undefined) out.push({ field, origin: originOf(url) });
  }
  if (out.length === 0) out.push({ field: "kind", origin: `default:${provider.kind}` });
  return out;
}

/** The origin of a URL, or the text itself when it does not parse. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
