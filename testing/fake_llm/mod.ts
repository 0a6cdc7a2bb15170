/**
 * A scriptable fake LLM server speaking a real wire format byte for byte, for tests and
 * benchmarks. No model is reachable from the test machine; this is the sanctioned stand-in.
 *
 * @module
 */
export type {
  CompletionStep,
  ErrorStep,
  FakeFormat,
  FakeLlm,
  FakeLlmOptions,
  FakeScript,
  FakeStep,
  FakeToolCall,
  HangStep,
  RecordedRequest,
  ResetStep,
} from "./types.ts";
export { computeUsage, openAiErrorBody, tokensFor } from "./openai_format.ts";
export { anthropicErrorBody, computeAnthropicUsage } from "./anthropic_format.ts";
export { computeResponsesUsage } from "./responses_format.ts";
export { commonPrefix, startFakeLlm } from "./server.ts";
export { fakeToolCall } from "./tool_call.ts";
