/**
 * The `responses` provider kind (OpenAI Responses API). Importing this module registers the
 * kind.
 *
 * @module
 */
import { registerProviderKind } from "../registry.ts";
import { createResponsesProvider } from "./provider.ts";
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
registerProviderKind("responses", createResponsesProvider, { requiresMaxTokens: false });
