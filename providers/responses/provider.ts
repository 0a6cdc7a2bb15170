/**
 * The `responses` provider kind: the OpenAI Responses API over SSE (`/responses`), stateless.
 *
 * @module
 */
import { capabilitiesFor, requestForCapabilities } from "../capabilities.ts";
import type { ProviderSettings } from "../registry.ts";
import { SseProvider } from "../sse_provider.ts";
import type { Provider } from "../types.ts";
import {
  buildResponsesBody,
  buildResponsesHeaders,
  resolveResponsesUrl,
  type ResponsesBodyOptions,
  responsesBodyPieces,
} from "./request.ts";
import { decodeResponsesStream } from "./stream.ts";
import { ProviderOptionError } from "../errors.ts";

/** Abandon a stream silent for this long; reasoning models may think for minutes. */
export const RESPONSES_IDLE_TIMEOUT_MS = 300_000;

/** A provider speaking the Responses wire format. */
export class ResponsesProvider extends SseProvider {
  constructor(settings: ProviderSettings) {
    const options = settings.options ?? {};
    const include = options.encrypted_reasoning;
    if (include !== undefined && typeof include !== "boolean") {
      throw new ProviderOptionError(settings.name, "encrypted_reasoning", "true or false");
    }
    const summary = options.reasoning_summary;
    if (summary !== undefined && typeof summary !== "string") {
      throw new ProviderOptionError(settings.name, "reasoning_summary", "a string");
    }
    const bodyOptions: ResponsesBodyOptions = {
      includeEncryptedReasoning: include,
      reasoningSummary: summary,
    };
    // A model without image support never receives an image part, whatever the history holds.
    const caps = capabilitiesFor({ ...settings, kind: "responses" });
    super(settings, {
      url: resolveResponsesUrl(settings),
      headers: buildResponsesHeaders(settings),
      idleTimeoutMs: RESPONSES_IDLE_TIMEOUT_MS,
      buildBody: (req) => buildResponsesBody(requestForCapabilities(req, caps), bodyOptions),
      pieces: (req) => responsesBodyPieces(requestForCapabilities(req, caps), bodyOptions),
      decode: decodeResponsesStream,
    });
  }
}

/** Builds a `responses` provider; the factory registered for the kind. */
export function createResponsesProvider(settings: ProviderSettings): Provider {
  return new ResponsesProvider(settings);
}
