/**
 * Moved to `testing/scripted_provider.ts` (published as `@reasonix/reasonix/testing`).
 *
 * @module
 */
export * from "../../testing/scripted_provider.ts";
