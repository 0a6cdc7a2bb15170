/**
 * Types of `@` references (spec §3.9).
 *
 * @module
 */
import type { ImagePart } from "../../providers/types.ts";
import type { ReadGuard } from "../../tools/types.ts";

/**
 * A part of a prompt the user did not type: a command file's template, an MCP prompt. Its `@`
 * references are repository-supplied, so they must stay inside the workspace.
 */
export interface SuppliedText {
  /** Offset of the first character. */
  start: number;
  /** Offset just past the last character. */
  end: number;
  /** Where the text came from, for notices: `.reasonix/commands/review.md`, `MCP prompt …`. */
  source: string;
}

/** Reads MCP resources for `@<server>:<uri>`; injected so core does not depend on plugins. */
export interface McpResourceReader {
  /** Whether `name` is a configured MCP server (only then is `name:…` read as a resource). */
  hasServer(name: string): boolean;
  /** The resource's text. Throws when it cannot be read. */
  readResource(server: string, uri: string, opts: { signal: AbortSignal }): Promise<string>;
}

/** What one reference resolved to. `ref` is the token as typed, without the `@`. */
export type Attachment =
  | {
    kind: "file";
    ref: string;
    /** Path as shown: relative to the workspace root when inside it. */
    path: string;
    text: string;
    /** File size in bytes. */
    size: number;
    /** Whether only the first `maxFileBytes` were included. */
    truncated: boolean;
  }
  | { kind: "binary"; ref: string; path: string; size: number }
  | {
    /** A PNG, JPEG, GIF or WebP file, attached to the message as an image. */
    kind: "image";
    ref: string;
    path: string;
    size: number;
    image: ImagePart;
  }
  | {
    kind: "directory";
    ref: string;
    path: string;
    /** Depth-first listing, one entry per line, indented by depth. */
    listing: string;
    entries: number;
    truncated: boolean;
  }
  | {
    kind: "resource";
    ref: string;
    server: string;
    uri: string;
    text: string;
    truncated: boolean;
  };

/** Options of {@link resolveReferences}. */
export interface ResolveOptions {
  /** Relative paths resolve against this directory (the workspace root). */
  root: string;
  signal?: AbortSignal;
  mcp?: McpResourceReader;
  /** Largest file or resource text included, in bytes. Default 64 KiB. */
  maxFileBytes?: number;
  /** Most directory entries listed. Default 300. */
  maxDirEntries?: number;
  /** Upper bound for one MCP resource read. Default 30 s. */
  resourceTimeoutMs?: number;
  /**
   * The read tools' guard (`[sandbox].forbid_read` and the read path rules): a reference to a
   * path it blocks is not read, whoever wrote it. Directory listings leave such entries out.
   */
  readGuard?: ReadGuard;
  /**
   * Parts of the text that came from the repository rather than the user. A reference whose
   * path has any character in one is read only when its real path (symlinks followed) lies
   * inside `root`.
   */
  supplied?: readonly SuppliedText[];
}

/** Attachments in order of first mention, and notices for references that failed. */
export interface ResolvedReferences {
  attachments: Attachment[];
  notices: string[];
}
