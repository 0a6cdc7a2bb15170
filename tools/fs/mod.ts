/**
 * Shared file and text helpers: atomic, link-keeping writes over any `Workspace`, readable
 * file-system error messages, executable lookup and character-safe text cuts. The built-in
 * tools, the configuration writers, the memory store and plugins import them from here.
 *
 * @module
 */
export {
  atomicWrite,
  type AtomicWriteOptions,
  findExecutable,
  type FindExecutableOptions,
  fsErrorMessage,
  lstatOrUndefined,
  MAX_TEXT_FILE_BYTES,
  type OnWorkspace,
  pathListDelimiter,
  permissionBits,
  readOnlyReason,
  replaceFile,
  type ReplaceFileOptions,
  sortNewestFirst,
  specialFileKind,
  statOrUndefined,
  writeTarget,
} from "./files.ts";
export { charCount, clipLine, formatSize, sliceChars } from "./text.ts";
