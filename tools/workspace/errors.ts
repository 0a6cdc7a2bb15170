/**
 * File-system errors by errno name, whatever raised them: Deno's own error classes carry a
 * `code` (`ENOENT`, …) for operating-system errors, and a remote workspace sets the same
 * names. Callers ask {@linkcode fsErrorCode} instead of testing error classes, so the tools
 * work over any {@linkcode Workspace} implementation.
 *
 * @module
 */
/** The errno names the tools act on; others pass through as plain strings. */
export type FsErrorCode =
  | "ENOENT"
  | "EACCES"
  | "EPERM"
  | "EEXIST"
  | "EISDIR"
  | "ENOTDIR"
  | "EXDEV"
  | "ELOOP"
  | "ENOTEMPTY";

/** Error classes (by `name`) that carry no `code` but stand for one, e.g. thrown by Deno itself. */
const CODE_BY_NAME: Readonly<Record<string, FsErrorCode>> = {
  NotFound: "ENOENT",
  PermissionDenied: "EACCES",
  AlreadyExists: "EEXIST",
  IsADirectory: "EISDIR",
  NotADirectory: "ENOTDIR",
  FilesystemLoop: "ELOOP",
};

/** A file-system failure, for `Workspace` implementations that do not raise Deno's errors. */
export class FsError extends Error {
  /** The errno name, e.g. `ENOENT`. */
  readonly code: string;

  /** An error with errno name `code` (e.g. `ENOENT`). */
  constructor(code: FsErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = "FsError";
  }
}

/** The errno name of a file-system error (`ENOENT`, `EACCES`, …), or undefined. */
export function fsErrorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== "object") return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  return CODE_BY_NAME[(error as { name?: string }).name ?? ""];
}

/** Whether nothing exists at the path (`ENOENT`). */
export function isNotFound(error: unknown): boolean {
  return fsErrorCode(error) === "ENOENT";
}

/** Whether the operating system refused access (`EACCES` or `EPERM`). */
export function isPermissionDenied(error: unknown): boolean {
  const code = fsErrorCode(error);
  return code === "EACCES" || code === "EPERM";
}
