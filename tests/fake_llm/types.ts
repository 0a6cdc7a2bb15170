/**
 * Moved to `testing/fake_llm/types.ts` (published as `@reasonix/reasonix/testing`).
 *
 * @module
 */
export * from "../../testing/fake_llm/types.ts";
