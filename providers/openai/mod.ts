/**
 * The `openai` provider kind (OpenAI-compatible Chat Completions). `register.ts` registers it.
 *
 * @module
 */
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
