/**
 * The `responses` provider kind (OpenAI Responses API). `register.ts` registers it.
 *
 * @module
 */
export {
  createResponsesProvider,
  RESPONSES_IDLE_TIMEOUT_MS,
  ResponsesProvider,
} from "./provider.ts";
export {
  buildResponsesBody,
  buildResponsesHeaders,
  inputItems,
  joinReasoningSignatures,
  resolveResponsesUrl,
  type ResponsesBodyOptions,
} from "./request.ts";
export {
  decodeResponsesStream,
  normalizeResponsesUsage,
  type ResponsesDecodeOptions,
  type ResponsesUsage,
} from "./stream.ts";
