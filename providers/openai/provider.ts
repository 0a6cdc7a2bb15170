/**
 * The `openai` provider kind: OpenAI-compatible `/chat/completions` over SSE (OpenAI, DeepSeek,
 * OpenRouter, vLLM, …).
 *
 * @module
 */
import { capabilitiesFor, requestForCapabilities } from "../capabilities.ts";
import type { ProviderSettings } from "../registry.ts";
import { SseProvider } from "../sse_provider.ts";
import type { Provider } from "../types.ts";
import {
  buildHeaders,
  buildRequestBody,
  type MaxTokensField,
  requestBodyPieces,
  resolveRequestUrl,
} from "./request.ts";
import { decodeChatStream } from "./stream.ts";
import { ProviderOptionError } from "../errors.ts";

/**
 * Default for abandoning a silent stream. Reasoning models may think for minutes before the
 * first token, but servers send `: keep-alive` comments meanwhile, which count as activity.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** A provider speaking the Chat Completions wire format. */
export class OpenAiProvider extends SseProvider {
  constructor(settings: ProviderSettings) {
    const field = settings.options?.max_tokens_field;
    if (field !== undefined && field !== "max_tokens" && field !== "max_completion_tokens") {
      throw new ProviderOptionError(
        settings.name,
        "max_tokens_field",
        '"max_tokens" or "max_completion_tokens"',
      );
    }
    const maxTokensField: MaxTokensField = field ?? "max_tokens";
    // A model without image support never receives an image part, whatever the history holds.
    const caps = capabilitiesFor({ ...settings, kind: "openai" });
    super(settings, {
      url: resolveRequestUrl(settings),
      headers: buildHeaders(settings),
      idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS,
      buildBody: (req) => buildRequestBody(requestForCapabilities(req, caps), { maxTokensField }),
      pieces: (req) => requestBodyPieces(requestForCapabilities(req, caps), { maxTokensField }),
      decode: decodeChatStream,
    });
  }
}

/** Builds an `openai` provider; the factory registered for the kind. */
export function createOpenAiProvider(settings: ProviderSettings): Provider {
  return new OpenAiProvider(settings);
}
