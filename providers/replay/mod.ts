/**
 * The `replay` provider kind: plays back a recording made with `reasonix run --record`.
 * `register.ts` registers the kind. Replaying needs the recorded kind registered too.
 *
 * @module
 */
export { createReplayProvider, ReplayProvider } from "./provider.ts";
export {
  type Exchange,
  type ParsedRecording,
  parseRecording,
  ReplayError,
  replayFetch,
  type ReplayFetchOptions,
} from "./reader.ts";
