/**
 * The provider layer: wire-neutral message types, the kind registry and the shared HTTP/SSE
 * machinery. Kinds live in subfolders and register themselves from their `register.ts`;
 * `builtin_kinds.ts` imports every built-in one.
 *
 * @module
 */
export type * from "./types.ts";
export {
  ContextOverflowError,
  ProviderError,
  type ProviderErrorCode,
  ProviderOptionError,
} from "./errors.ts";
export * from "./registry.ts";
export { capabilitiesFor, imagePlaceholder, requestForCapabilities } from "./capabilities.ts";
export { SseProvider, type SseWire } from "./sse_provider.ts";
export { BodyBuffer, type BodyEncoding, bodyEncoding, type EncodedBody } from "./body_buffer.ts";
