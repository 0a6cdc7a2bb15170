/**
 * The `openai` provider kind (OpenAI-compatible Chat Completions). Importing this module
 * registers the kind.
 *
 * @module
 */
import { registerProviderKind } from "../registry.ts";
import { createOpenAiProvider } from "./provider.ts";

export { createOpenAiProvider, DEFAULT_IDLE_TIMEOUT_MS, OpenAiProvider } from "./provider.ts";
export {
  type BodyOptions,
  buildHeaders,
  buildRequestBody,
  type MaxTokensField,
  messageFragment,
  resolveRequestUrl,
} from "./request.ts";
export {
  decodeChatStream,
  type DecodeOptions,
  mapFinishReason,
  normalizeUsage,
  type WireUsage,
} from "./stream.ts";

registerProviderKind("openai", createOpenAiProvider);
