/**
 * Test helpers for programs built on Reasonix: a fake LLM server that speaks the OpenAI,
 * Anthropic and Responses wire formats byte for byte (point a provider's `base_url` at it),
 * and a scripted in-process provider. Use them to test your own tools end to end.
 *
 * @example Answer one request with a text reply
 * ```ts
 * import { startFakeLlm } from "@reasonix/reasonix/testing";
 *
 * const fake = await startFakeLlm({ script: [{ text: "hello" }] });
 * console.log(fake.url); // an OpenAI-compatible endpoint on 127.0.0.1
 * await fake.close();
 * ```
 *
 * @module
 */
export * from "./fake_llm/mod.ts";
export { ScriptedProvider, type ScriptedReply, textReply, toolReply } from "./scripted_provider.ts";
