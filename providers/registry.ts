/**
 * The provider-kind registry. Built-in kinds register on import; each run creates its
 * providers from configuration by kind name.
 *
 * @module
 */
import type { Provider } from "./types.ts";

/** Retry policy for transient failures before any output was shown. */
export interface RetryPolicy {
  /** Total attempts including the first. */
  maxAttempts: number;
  /** Delay before the first retry; later retries back off exponentially from it. */
  baseDelayMs: number;
  /** Upper bound on any single retry delay. */
  maxDelayMs: number;
}

/** Resolved settings a provider kind is built from. */
export interface ProviderSettings {
  /** Configured provider name. */
  name: string;
  /** Model id sent on the wire. */
  model: string;
  /** Endpoint base URL, e.g. `https://api.deepseek.com`; the kind appends its path. */
  baseUrl?: string;
  /** Full request URL, used verbatim when set. */
  requestUrl?: string;
  /** Legacy OpenAI-only full chat URL. */
  chatUrl?: string;
  /** API key sent in the kind's auth header; omitted when unset. */
  apiKey?: string;
  /** Extra static request headers. */
  headers?: Record<string, string>;
  /** Retry policy for transient failures; the kind's default when unset. */
  retry?: RetryPolicy;
  /** Abort a stream that sends nothing for this long. */
  idleTimeoutMs?: number;
  /** Injected for tests and proxies; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Kind-specific options from the provider's config table. */
  options?: Record<string, unknown>;
  /**
   * Told when a 400 revealed the model's real output limit. The provider already clamps its
   * own later requests; the owner may feed the limit into its output budgeting.
   */
  onOutputLimit?: (limit: number) => void;
}

/** Builds a provider from settings. */
export type ProviderFactory = (settings: ProviderSettings) => Provider;

/**
 * What a wire format itself demands, declared by the kind when it registers. Endpoint- and
 * model-specific facts live in `capabilities.ts`; nothing above `providers/` branches on a
 * kind or vendor name.
 */
export interface KindDescriptor {
  /** The wire format rejects a request without an output cap (Anthropic `max_tokens`). */
  requiresMaxTokens: boolean;
  /** The cap to send when one is required and nothing better is known about the endpoint. */
  defaultMaxTokens?: number;
  /**
   * The kind-specific option keys the kind reads (`thinking`, `max_tokens_field`). When set,
   * the configuration layer warns about any other key and drops it; without it every extra
   * key of the provider table reaches the kind as an option.
   */
  options?: readonly string[];
  /**
   * The path the kind appends to `base_url` (`/chat/completions`), so a `base_url` that
   * already ends in it is recognised instead of doubled, and a 404 can say what was appended.
   */
  requestPath?: string;
}

const DEFAULT_DESCRIPTOR: Readonly<KindDescriptor> = Object.freeze({ requiresMaxTokens: false });

const kinds = new Map<string, { factory: ProviderFactory; descriptor: KindDescriptor }>();

/**
 * Registers a provider kind. Throws when the kind is already registered.
 *
 * @example Register a kind that echoes the last message
 * ```ts
 * import { type Chunk, registerProviderKind } from "@reasonix/reasonix";
 *
 * registerProviderKind("echo-example", (settings) => ({
 *   name: settings.name,
 *   async *stream(req): AsyncIterable<Chunk> {
 *     yield { type: "text", text: req.messages.at(-1)?.content ?? "" };
 *     yield { type: "done", finishReason: "stop" };
 *   },
 * }));
 * // A `[[providers]]` entry with `kind = "echo-example"` now builds this provider.
 * ```
 */
export function registerProviderKind(
  kind: string,
  factory: ProviderFactory,
  descriptor: KindDescriptor = DEFAULT_DESCRIPTOR,
): void {
  if (kinds.has(kind)) throw new Error(`provider kind "${kind}" is already registered`);
  kinds.set(kind, {
    factory,
    descriptor: {
      ...descriptor,
      ...(descriptor.options ? { options: [...descriptor.options] } : {}),
    },
  });
}

/** The descriptor a kind registered with; the neutral default for an unknown kind. */
export function providerKindDescriptor(kind: string): KindDescriptor {
  const descriptor = kinds.get(kind)?.descriptor ?? DEFAULT_DESCRIPTOR;
  return { ...descriptor, ...(descriptor.options ? { options: [...descriptor.options] } : {}) };
}

/** Names of every registered provider kind, sorted. */
export function providerKinds(): string[] {
  return [...kinds.keys()].sort();
}

/** Whether a kind is registered. */
export function hasProviderKind(kind: string): boolean {
  return kinds.has(kind);
}

/** Creates a provider of the given kind. Throws `RangeError` for an unknown kind. */
export function createProvider(kind: string, settings: ProviderSettings): Provider {
  const factory = kinds.get(kind)?.factory;
  if (!factory) {
    throw new RangeError(
      `unknown provider kind "${kind}" (known: ${providerKinds().join(", ")})`,
    );
  }
  return factory(settings);
}
