/**
 * The `replay` provider kind: plays back a recording made with `reasonix run --record`.
 * Importing this module registers the kind. Replaying needs the recorded kind registered too.
 *
 * @module
 */
import { registerProviderKind } from "../registry.ts";
import { createReplayProvider } from "./provider.ts";
export { createReplayProvider, ReplayProvider } from "./provider.ts";
export {
  type Exchange,
  type ParsedRecording,
  parseRecording,
  ReplayError,
  replayFetch,
  type ReplayFetchOptions,
} from "./reader.ts";
registerProviderKind("replay", createReplayProvider);
