/**
 * `@` references (spec §3.9): local files and directories that exist, and MCP resources as
 * `@<server>:<uri>`, attached to the user's turn.
 *
 * @module
 */
export type {
  Attachment,
  McpResourceReader,
  ResolvedReferences,
  ResolveOptions,
  SuppliedText,
} from "./types.ts";
export {
  candidateTargets,
  findReferenceTokens,
  type ReferenceToken,
  splitResourceTarget,
} from "./parse.ts";
export { isNoise, NOISE_NAMES } from "./noise.ts";
export {
  type DirectoryListing,
  type FileContent,
  listDirectory,
  readCappedFile,
  readHead,
} from "./read.ts";
export { DEFAULT_MAX_DIR_ENTRIES, DEFAULT_MAX_FILE_BYTES, resolveReferences } from "./resolve.ts";
export { attachedImages, attachmentLabel, formatAttachment, withAttachments } from "./format.ts";
export { completeReferencePath, type PathCompletion } from "./complete.ts";
