/**
 * The fake LLM server moved to `testing/fake_llm/` (published as `@reasonix/reasonix/testing`).
 *
 * @module
 */
export * from "../../testing/fake_llm/mod.ts";
