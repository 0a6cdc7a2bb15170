/**
 * Moved to `testing/fake_llm/anthropic_format.ts` (published as `@reasonix/reasonix/testing`).
 *
 * @module
 */
export * from "../../testing/fake_llm/anthropic_format.ts";
