/**
 * The workspace interface the tools run against, its local implementation and the
 * errno-based error helpers.
 *
 * @module
 */
export type * from "./types.ts";
export { LocalWorkspace, localWorkspace } from "./local.ts";
export {
  FsError,
  type FsErrorCode,
  fsErrorCode,
  isNotFound,
  isPermissionDenied,
} from "./errors.ts";
