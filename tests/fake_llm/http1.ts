/**
 * Moved to `testing/fake_llm/http1.ts` (published as `@reasonix/reasonix/testing`).
 *
 * @module
 */
export * from "../../testing/fake_llm/http1.ts";
