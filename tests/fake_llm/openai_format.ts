/**
 * Moved to `testing/fake_llm/openai_format.ts` (published as `@reasonix/reasonix/testing`).
 *
 * @module
 */
export * from "../../testing/fake_llm/openai_format.ts";
