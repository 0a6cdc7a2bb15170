/**
 * The `anthropic` provider kind (Anthropic Messages API). `register.ts` registers it.
 *
 * @module
 */
export {
  ANTHROPIC_DESCRIPTOR,
  ANTHROPIC_IDLE_TIMEOUT_MS,
  AnthropicProvider,
  createAnthropicProvider,
  MIN_THINKING_BUDGET,
  THINKING_ANSWER_RESERVE,
  thinkingBudgetFor,
} from "./provider.ts";
export {
  ANTHROPIC_VERSION,
  type AnthropicBodyOptions,
  buildMessagesBody,
  buildMessagesHeaders,
  CACHE_MARKER,
  messageBlocks,
  resolveMessagesUrl,
  wireMessages,
} from "./request.ts";
export {
  type AnthropicUsage,
  decodeMessagesStream,
  mapStopReason,
  type MessagesDecodeOptions,
  normalizeAnthropicUsage,
} from "./stream.ts";
