/**
 * Moved to `testing/fake_llm/responses_format.ts` (published as `@reasonix/reasonix/testing`).
 *
 * @module
 */
export * from "../../testing/fake_llm/responses_format.ts";
